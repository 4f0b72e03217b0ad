// The verdict table of a run analysis (analysis.h): what is decided, as it is decided. The value shown
// per arm is the class statistic over its rounds (its CI too; `rounds` counts them); the ratio and its
// CI are those the verdict is read from (`ratio rounds` counts the paired rounds behind them: the
// deciding look's once decided); the detectable effects are one-sided, each side its own; the plan, the
// stop in words and every warning follow the class header.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

std::string value_text(const ClassAnalysis& c, double v) {
  if (c.statistic_unit == "steps/s") return fmt::format("{:.1f}/s", v);
  return v >= 1e6 ? fmt::format("{:.2f} ms", v / 1e6) : fmt::format("{:.1f} us", v / 1e3);
}

std::string ci_text(const ClassAnalysis& c, double lo, double hi) {
  if (c.statistic_unit == "steps/s") return fmt::format("[{:.1f}, {:.1f}]/s", lo, hi);
  return hi >= 1e6 ? fmt::format("[{:.2f}, {:.2f}] ms", lo / 1e6, hi / 1e6) : fmt::format("[{:.1f}, {:.1f}] us", lo / 1e3, hi / 1e3);
}

constexpr const char* kRow = "  {:<22} {:<10} {:>6} {:>12} {:>25} {:>12} {:>9} {:>21} {:<13} {:>13} {}\n";

std::string detectable_text(const ArmAnalysis& a) {
  if (a.role != "compared" || !a.detectable_pct || !a.detectable_below_pct) return "-";
  return fmt::format("{:+.1f}/{:+.1f}%", *a.detectable_below_pct, *a.detectable_pct);
}

}  // namespace

std::string render_analysis_table(const std::vector<ClassAnalysis>& classes, bool complete) {
  std::string out = classes.empty() ? "" : "In short:\n";
  for (const auto& c : classes) out += "  " + class_sentence(c) + "\n";
  if (!classes.empty()) out += "\n";
  for (const auto& c : classes) {
    out += fmt::format("Class {}: baseline {}, statistic {} per trial, margin ±{}%, {} complete rounds: {}\n", escape_control(c.name),
                       escape_control(c.baseline), c.statistic, c.margin_pct, c.rounds_done, c.stop_words);
    out += fmt::format("  plan: looks at rounds {}; each look's ratio CI at {:.3f}% (Pocock boundary z {:.3f}, "
                       "family {:g}% over {} comparison{})\n",
                       fmt::join(c.looks, ", "), c.look_confidence * 100, c.boundary_z, c.family_confidence * 100,
                       c.comparisons, c.comparisons == 1 ? "" : "s");
    out += fmt::format(kRow, "arm", "role", "rounds", c.statistic, "CI over rounds", "ratio rounds", "ratio", "ratio CI",
                       "verdict", "detectable", "flagged");
    for (const auto& a : c.arms) {
      std::string ratio = a.compared ? fmt::format("{:+.2f}%", a.ratio_pct) : "-";
      std::string ci = a.compared ? fmt::format("[{:+.2f}, {:+.2f}]%", a.ratio_lo, a.ratio_hi) : "-";
      // An arm without trials yet has no value: "-", never 0.
      std::string value = a.has_statistic ? value_text(c, a.statistic_value) : "-";
      std::string value_ci = a.has_statistic ? ci_text(c, a.statistic_ci_lo, a.statistic_ci_hi) : "-";
      // 0 from a summary written before the count was kept: unknown, not 0.
      const std::string value_rounds = a.has_statistic && a.statistic_rounds > 0 ? std::to_string(a.statistic_rounds)
                                       : a.has_statistic ? "?" : "0";
      const std::string ratio_rounds = a.compared ? std::to_string(a.n_rounds) : "-";
      out += fmt::format(kRow, a.arm, a.role, value_rounds, value, value_ci, ratio_rounds, ratio, ci, a.verdict,
                         detectable_text(a), a.flagged_trials);
    }
    if (c.noise_floor_pct)
      out += fmt::format("  noise floor: identical placements differ by up to {:.2f}% here (A/A control)\n", *c.noise_floor_pct);
    for (const auto& w : c.warnings) out += "  warning: " + w + "\n";
  }
  out += complete ? "" : "(run not complete: statistics of the trials finished so far)\n";
  return out;
}

}  // namespace placebench::harness
