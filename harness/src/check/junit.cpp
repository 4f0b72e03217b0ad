// JUnit XML of a check report: one <testcase> per check, a <failure> with expected, actual and why.
// The layout is the common subset Jenkins, GitLab and GitHub reporters read (testsuites > testsuite >
// testcase); the testsuite carries hostname, timestamp and time, so reports from many nodes can be told
// apart; given those (JunitStamp), the output is a pure function of the report.
#include <fmt/format.h>

#include <chrono>

#include "placebench/harness/check/printers.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness::check {
namespace {
// Set when the program loads: the start of the command whose report this is.
const std::chrono::steady_clock::time_point kProcessStart = std::chrono::steady_clock::now();
}  // namespace

JunitStamp junit_stamp_now() {
  std::string ts = utc_timestamp_now();
  if (!ts.empty() && ts.back() == 'Z') ts.pop_back();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - kProcessStart).count();
  return {local_host_name(), ts, s};
}

std::string render_junit_xml(const CheckReport& report) { return render_junit_xml(report, junit_stamp_now()); }

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (u >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r') out += ch;
    }
  }
  return out;
}

std::string render_junit_xml(const CheckReport& report, const JunitStamp& stamp) {
  int n = static_cast<int>(report.checks.size()), failures = report.failures(), errors = report.unknowns();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"placebench check\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n", n,
                     failures, errors, stamp.time_s);
  out += fmt::format("  <testsuite name=\"placebench check {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
                     "hostname=\"{}\" timestamp=\"{}\" time=\"{:.3f}\">\n",
                     xml_escape(report.run_dir), n, failures, errors, xml_escape(stamp.hostname), xml_escape(stamp.timestamp), stamp.time_s);
  out += "    <properties>\n";
  out += fmt::format("      <property name=\"run_dir\" value=\"{}\"/>\n", xml_escape(report.run_dir));
  out += fmt::format("      <property name=\"reference\" value=\"{}\"/>\n", xml_escape(report.reference_path));
  out += "    </properties>\n";
  for (const auto& c : report.checks) {
    std::string classname = "placebench." + (c.class_name.empty() ? std::string("run") : c.class_name);
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(classname), xml_escape(c.name));
    std::string body = fmt::format("expected: {}\nactual: {}\nreference: {}", c.expected, c.actual, c.where);
    if (c.passed) {
      out += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n", xml_escape(body));
    } else if (c.unknown) {  // cannot tell: a JUnit error (not a pass, not a failure of the node)
      out += fmt::format(">\n      <error message=\"{}\" type=\"unknown\">{}</error>\n    </testcase>\n", xml_escape(c.message),
                         xml_escape(body));
    } else {
      out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n", xml_escape(c.message),
                         xml_escape(c.kind), xml_escape(body));
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace placebench::harness::check
