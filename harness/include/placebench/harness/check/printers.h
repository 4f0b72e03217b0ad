// Printers of a CheckReport: the console table, JUnit XML (one test case per check, for CI systems)
// and a Markdown summary (fit for a CI job summary, e.g. $GITHUB_STEP_SUMMARY).
#pragma once
#include <string>

#include "placebench/harness/check/evaluate.h"

namespace placebench::harness::check {

// The console table; rows fit 100 columns unless `wide` (each check on one line, however long).
std::string render_check_table(const CheckReport& report, bool wide = false);
// Where and when a JUnit report was made: the testsuite's hostname, timestamp (UTC, ISO 8601 without a
// zone, as the JUnit schema has it) and time (seconds) attributes.
struct JunitStamp {
  std::string hostname, timestamp;
  double time_s = 0;
};
// This host, now, and the seconds since this process started (what `check` took to read and evaluate).
JunitStamp junit_stamp_now();
std::string render_junit_xml(const CheckReport& report, const JunitStamp& stamp);
std::string render_junit_xml(const CheckReport& report);  // stamped with junit_stamp_now()
std::string render_markdown(const CheckReport& report);

// XML 1.0 text and attribute escaping (&, <, >, ", ') with control characters other than tab,
// newline and carriage return dropped, as XML 1.0 cannot carry them.
std::string xml_escape(const std::string& text);

}  // namespace placebench::harness::check
