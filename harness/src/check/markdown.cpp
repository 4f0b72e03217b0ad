// Markdown summary of a check report, fit for a CI job summary: the verdict line first, one table row
// per check, then each failure's reason and where its reference is.
#include <fmt/format.h>

#include "placebench/harness/check/printers.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::check {
namespace {

// Text from the run or the reference: HTML, pipes and control characters escaped (terminal_text.h).
std::string cell(const std::string& text) { return markdown_text(text); }

}  // namespace

std::string render_markdown(const CheckReport& report) {
  int n = static_cast<int>(report.checks.size()), failures = report.failures(), unknowns = report.unknowns();
  std::string out = failures > 0    ? fmt::format("### placebench check: FAIL ({} of {} checks failed)\n\n", failures, n)
                    : unknowns > 0 ? fmt::format("### placebench check: UNKNOWN ({} of {} checks cannot tell yet)\n\n", unknowns, n)
                                   : fmt::format("### placebench check: PASS ({} of {} checks)\n\n", n, n);
  out += fmt::format("Run {} against {}.\n\n", cell(report.run_dir), cell(report.reference_path));
  out += "| result | check | expected | actual |\n| --- | --- | --- | --- |\n";
  for (const auto& c : report.checks)
    out += fmt::format("| {} | {} | {} | {} |\n", c.passed ? "pass" : c.unknown ? "*unknown*" : "**FAIL**", cell(c.name), cell(c.expected), cell(c.actual));
  if (failures + unknowns > 0) {
    out += unknowns == 0 ? "\nFailures:\n\n" : failures == 0 ? "\nCannot tell yet:\n\n" : "\nFailures, and checks that cannot tell yet:\n\n";
    for (const auto& c : report.checks)
      if (!c.passed) out += fmt::format("- {} ({}): {}\n", cell(c.name), cell(c.where), cell(c.message));
  }
  return out;
}

}  // namespace placebench::harness::check
