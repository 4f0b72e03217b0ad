// Printers of a CheckReport: the console table, JUnit XML (one test case per check, for CI systems)
// and a Markdown summary (fit for a CI job summary, e.g. $GITHUB_STEP_SUMMARY).
#pragma once
#include <string>

#include "placebench/harness/check/evaluate.h"

namespace placebench::harness::check {

std::string render_check_table(const CheckReport& report);
std::string render_junit_xml(const CheckReport& report);
std::string render_markdown(const CheckReport& report);

// XML 1.0 text and attribute escaping (&, <, >, ", ') with control characters other than tab,
// newline and carriage return dropped, as XML 1.0 cannot carry them.
std::string xml_escape(const std::string& text);

}  // namespace placebench::harness::check
