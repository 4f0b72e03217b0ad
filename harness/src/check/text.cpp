// Console table of a check report (stdout of `placebench check`).
#include <fmt/format.h>

#include <algorithm>

#include "placebench/harness/check/printers.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::check {

std::string render_check_table(const CheckReport& report) {
  std::size_t width = 5;
  for (const auto& c : report.checks) width = std::max(width, escape_control(c.name).size());
  std::string out = fmt::format("Check {} against {}\n", escape_control(report.run_dir), escape_control(report.reference_path));
  out += fmt::format("  {:<6} {:<{}}  {:<28}  {}\n", "result", "check", width, "actual", "expected");
  for (const auto& c : report.checks) {
    out += fmt::format("  {:<6} {:<{}}  {:<28}  {}\n", c.passed ? "pass" : "FAIL", escape_control(c.name), width, escape_control(c.actual),
                       escape_control(c.expected));
    if (!c.passed) out += fmt::format("         {}: {}\n", escape_control(c.where), escape_control(c.message));
  }
  int n = static_cast<int>(report.checks.size()), failures = report.failures();
  out += failures == 0 ? fmt::format("PASS: {} of {} checks passed\n", n, n)
                       : fmt::format("FAIL: {} of {} checks failed\n", failures, n);
  return out;
}

}  // namespace placebench::harness::check
