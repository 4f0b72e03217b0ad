// JUnit XML of a check report: one <testcase> per check, a <failure> with expected, actual and why.
// The layout is the common subset Jenkins, GitLab and GitHub reporters read (testsuites > testsuite >
// testcase); no timestamps or durations, so the output is a pure function of the report.
#include <fmt/format.h>

#include "placebench/harness/check/printers.h"

namespace placebench::harness::check {

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

std::string render_junit_xml(const CheckReport& report) {
  int n = static_cast<int>(report.checks.size()), failures = report.failures();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"placebench check\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", n, failures);
  out += fmt::format("  <testsuite name=\"placebench check {}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                     xml_escape(report.run_dir), n, failures);
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
    } else {
      out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n", xml_escape(c.message),
                         xml_escape(c.kind), xml_escape(body));
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace placebench::harness::check
