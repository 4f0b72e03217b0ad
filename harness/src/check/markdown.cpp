// Markdown summary of a check report, fit for a CI job summary: the verdict line first, one table row
// per check, then each failure's reason and where its reference is.
#include <fmt/format.h>

#include "placebench/harness/check/printers.h"

namespace placebench::harness::check {
namespace {

// A table cell: pipes escaped, line breaks flattened.
std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out;
}

}  // namespace

std::string render_markdown(const CheckReport& report) {
  int n = static_cast<int>(report.checks.size()), failures = report.failures();
  std::string out = failures == 0 ? fmt::format("### placebench check: PASS ({} of {} checks)\n\n", n, n)
                                  : fmt::format("### placebench check: FAIL ({} of {} checks failed)\n\n", failures, n);
  out += fmt::format("Run `{}` against `{}`.\n\n", report.run_dir, report.reference_path);
  out += "| result | check | expected | actual |\n| --- | --- | --- | --- |\n";
  for (const auto& c : report.checks)
    out += fmt::format("| {} | {} | {} | {} |\n", c.passed ? "pass" : "**FAIL**", cell(c.name), cell(c.expected), cell(c.actual));
  if (failures > 0) {
    out += "\nFailures:\n\n";
    for (const auto& c : report.checks)
      if (!c.passed) out += fmt::format("- `{}` ({}): {}\n", cell(c.name), c.where, c.message);
  }
  return out;
}

}  // namespace placebench::harness::check
