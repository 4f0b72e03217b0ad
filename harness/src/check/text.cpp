// Console table of a check report (stdout of `placebench check`).
#include <fmt/format.h>

#include <algorithm>

#include "placebench/harness/check/printers.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::check {

namespace {

constexpr std::size_t kTableColumns = 100;

}  // namespace

// A row is result, check, actual and expected; by default a row that would pass 100 columns gives its
// expected value a line of its own under it ("expected: ..."), so no row is wider (--wide: one line each).
std::string render_check_table(const CheckReport& report, bool wide) {
  std::size_t width = 5;
  for (const auto& c : report.checks) width = std::max(width, escape_control(c.name).size());
  std::string out = fmt::format("Check {} against {}\n", escape_control(report.run_dir), escape_control(report.reference_path));
  out += fmt::format("  {:<6} {:<{}}  {:<28}  {}\n", "result", "check", width, "actual", "expected");
  for (const auto& c : report.checks) {
    std::string row = fmt::format("  {:<6} {:<{}}  {:<28}  ", CheckReport::result_word(c), escape_control(c.name), width,
                                  escape_control(c.actual));
    const std::string expected = escape_control(c.expected);
    if (wide || row.size() + expected.size() <= kTableColumns)
      out += row + expected + "\n";
    else
      out += trim_right(row) + "\n" + fmt::format("         expected: {}\n", expected);
    if (!c.passed) out += fmt::format("         {}: {}\n", escape_control(c.where), escape_control(c.message));
  }
  int n = static_cast<int>(report.checks.size()), failures = report.failures(), unknowns = report.unknowns();
  if (failures > 0) out += fmt::format("FAIL: {} of {} checks failed", failures, n);
  else if (unknowns > 0) out += fmt::format("UNKNOWN: {} of {} checks cannot tell yet (none failed)", unknowns, n);
  else out += fmt::format("PASS: {} of {} checks passed", n, n);
  out += failures > 0 && unknowns > 0 ? fmt::format("; {} cannot tell yet\n", unknowns) : "\n";
  return out;
}

}  // namespace placebench::harness::check
