// Printers of the run analysis: JSON (summary.json, compare --json) and the verdict table.
#include <fmt/format.h>

#include "placebench/harness/runner/analysis.h"

namespace placebench::harness {
namespace {

nlohmann::json nullable(bool present, double v) { return present ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json analysis_to_json(const std::vector<ClassAnalysis>& classes, bool complete, std::size_t trials) {
  nlohmann::json cj = nlohmann::json::array();
  for (const auto& c : classes) {
    nlohmann::json arms = nlohmann::json::array();
    for (const auto& a : c.arms)
      arms.push_back({{"arm", a.arm}, {"n_rounds", a.n_rounds}, {"median", nullable(a.measured, a.median_ns)},
                      {"median_ci", a.measured ? nlohmann::json{a.median_ci_lo, a.median_ci_hi} : nlohmann::json(nullptr)},
                      {"p90", nullable(a.measured, a.p90_ns)}, {"p99", nullable(a.measured, a.p99_ns)},
                      {"mean", nullable(a.measured, a.mean_ns)}, {"ratio_pct", nullable(a.compared, a.ratio_pct)},
                      {"ratio_ci_pct", a.compared ? nlohmann::json{a.ratio_lo, a.ratio_hi} : nlohmann::json(nullptr)},
                      {"confidence", nullable(a.compared, a.look_confidence)},
                      {"p_value", nullable(a.compared, a.p_value)}, {"verdict", a.verdict},
                      {"stop_reason", a.stop_reason}, {"flagged_trials", a.flagged_trials}});
    cj.push_back({{"name", c.name}, {"baseline", c.baseline}, {"statistic", c.statistic}, {"margin_pct", c.margin_pct},
                  {"rounds_done", c.rounds_done}, {"stop", c.stop}, {"holm_adjusted_p", c.holm_adjusted_p},
                  {"unit", "ns per step"}, {"arms", arms}});
  }
  return {{"schema_version", 1}, {"classes", cj}, {"complete", complete}, {"trials", trials}};
}

std::string render_analysis_table(const std::vector<ClassAnalysis>& classes, bool complete) {
  std::string out;
  for (const auto& c : classes) {
    out += fmt::format("Class {}: baseline {}, statistic {}, margin ±{}%, {} complete rounds{}\n", c.name, c.baseline,
                       c.statistic, c.margin_pct, c.rounds_done, c.stop ? " (stopped)" : "");
    out += fmt::format("  {:<22} {:>6} {:>12} {:>25} {:>9} {:>21} {:<13} {}\n", "arm", "rounds", "median", "median CI",
                       "ratio", "ratio CI", "verdict", "flagged");
    for (const auto& a : c.arms) {
      std::string ratio = a.compared ? fmt::format("{:+.2f}%", a.ratio_pct) : "-";
      std::string ci = a.compared ? fmt::format("[{:+.2f}, {:+.2f}]%", a.ratio_lo, a.ratio_hi) : "-";
      // An arm without trials yet has no median: "-", never 0.0 us.
      std::string median = a.measured ? fmt::format("{:.1f} us", a.median_ns / 1e3) : "-";
      std::string median_ci = a.measured ? fmt::format("[{:.1f}, {:.1f}] us", a.median_ci_lo / 1e3, a.median_ci_hi / 1e3) : "-";
      out += fmt::format("  {:<22} {:>6} {:>12} {:>25} {:>9} {:>21} {:<13} {}\n", a.arm, a.n_rounds, median, median_ci,
                         ratio, ci, a.verdict, a.flagged_trials);
    }
  }
  out += complete ? "" : "(run not complete: statistics of the trials finished so far)\n";
  return out;
}

}  // namespace placebench::harness
