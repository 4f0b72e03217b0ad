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

// --wide: every column.
constexpr const char* kWideRow = "  {:<22} {:<10} {:>6} {:>12} {:>25} {:>12} {:>9} {:>21} {:<13} {:>13} {}\n";
// The default, within 100 columns: the role is the verdict of a baseline or control arm, so it goes; the
// statistic's CI over rounds goes (the ratio CI decides); the rounds behind the ratio show only where they
// differ; the ratio with its CI in one column, in percent.
constexpr const char* kRow = "  {:<20} {:<12} {:>6} {:>9} {:>24} {:>12} {:>7}\n";

std::string detectable_text(const ArmAnalysis& a, const char* unit = "%") {
  if (a.role != "compared" || !a.detectable_pct || !a.detectable_below_pct) return "-";
  return fmt::format("{:+.1f}/{:+.1f}{}", *a.detectable_below_pct, *a.detectable_pct, unit);
}

// The cells both layouts share. An arm without trials yet has no value: "-", never 0.
struct ArmCells {
  std::string value, value_rounds, ratio_rounds;
};

ArmCells arm_cells(const ClassAnalysis& c, const ArmAnalysis& a) {
  ArmCells cells;
  cells.value = a.has_statistic ? value_text(c, a.statistic_value) : "-";
  // 0 from a summary written before the count was kept: unknown, not 0.
  cells.value_rounds = a.has_statistic && a.statistic_rounds > 0 ? std::to_string(a.statistic_rounds)
                       : a.has_statistic ? "?" : "0";
  cells.ratio_rounds = a.compared ? std::to_string(a.n_rounds) : "-";
  return cells;
}

void wide_rows(std::string& out, const ClassAnalysis& c) {
  out += fmt::format(kWideRow, "arm", "role", "rounds", c.statistic, "CI over rounds", "ratio rounds", "ratio", "ratio CI",
                     "verdict", "detectable", "flagged");
  for (const auto& a : c.arms) {
    const ArmCells cells = arm_cells(c, a);
    std::string ratio = a.compared ? fmt::format("{:+.2f}%", a.ratio_pct) : "-";
    std::string ci = a.compared ? fmt::format("[{:+.2f}, {:+.2f}]%", a.ratio_lo, a.ratio_hi) : "-";
    std::string value_ci = a.has_statistic ? ci_text(c, a.statistic_ci_lo, a.statistic_ci_hi) : "-";
    out += fmt::format(kWideRow, a.arm, a.role, cells.value_rounds, cells.value, value_ci, cells.ratio_rounds, ratio, ci,
                       a.verdict, detectable_text(a), a.flagged_trials);
  }
}

void compact_rows(std::string& out, const ClassAnalysis& c) {
  out += fmt::format(kRow, "arm", "verdict", "rounds", c.statistic, "ratio % [CI]", "detectable %", "flagged");
  bool rounds_differ = false;
  for (const auto& a : c.arms) {
    const ArmCells cells = arm_cells(c, a);
    std::string rounds = cells.value_rounds;
    if (a.compared && cells.ratio_rounds != cells.value_rounds) {
      rounds += "/" + cells.ratio_rounds;
      rounds_differ = true;
    }
    std::string ratio = a.compared ? fmt::format("{:+.2f} [{:+.2f}, {:+.2f}]", a.ratio_pct, a.ratio_lo, a.ratio_hi) : "-";
    out += fmt::format(kRow, a.arm, a.verdict, rounds, cells.value, ratio, detectable_text(a, ""), a.flagged_trials);
  }
  if (rounds_differ) out += "  rounds a/b: a rounds behind the value, b behind the ratio and verdict (the deciding look's)\n";
}

std::string condition_name(const ClassAnalysis& k) {
  std::string measured;
  if (k.aggressor_gbps) measured += fmt::format(", {:.1f} GB/s", *k.aggressor_gbps);
  if (k.aggressor_cores && k.hog != "quiet") measured += fmt::format(", {:.2f} cores", *k.aggressor_cores);
  if (k.hog == "quiet") return escape_control(k.condition);
  return fmt::format("{} ({} hog on the {} node, {} thread{}{})", escape_control(k.condition), k.hog, k.hog_node,
                     k.hog_threads, k.hog_threads == 1 ? "" : "s", measured);
}

// Issue 32: each loaded condition's arms (as the class's rows), each arm's change under load, then the
// dose-response slopes of every arm.
void condition_rows(std::string& out, const ClassAnalysis& c, bool wide) {
  if (c.condition.empty()) return;
  out += fmt::format("  the rows above: condition {}\n", condition_name(c));
  for (const ClassAnalysis& k : c.conditions) {
    out += fmt::format("  Under {}: {}\n", condition_name(k), k.stop_words);
    if (wide) wide_rows(out, k);
    else compact_rows(out, k);
    for (const ArmAnalysis& a : k.arms)
      if (a.load_compared)
        out += fmt::format("    {} against {}: {:+.2f}% [{:+.2f}, {:+.2f}] over {} rounds: {}\n", a.arm, c.condition,
                           a.load_ratio_pct, a.load_ratio_lo, a.load_ratio_hi, a.load_rounds, a.load_verdict);
    for (const auto& w : k.warnings) out += "    warning: " + w + "\n";
  }
  if (c.dose_response.empty()) return;
  out += "  dose-response: change of the statistic per unit of the aggressor's measured dose, median over rounds\n";
  for (const DoseResponse& d : c.dose_response)
    out += fmt::format("    {:<10} {:<5} {:<6} {:+8.2f} [{:+.2f}, {:+.2f}] {:<8} {} rounds, up to {:.2f}\n", d.arm, d.hog,
                       d.node, d.slope_pct, d.ci_lo, d.ci_hi, d.unit, d.rounds, d.max_dose);
}

// The class's sentence, and one per loaded condition ("CLASS under CONDITION: ...").
void sentences(std::string& out, const ClassAnalysis& c) {
  out += "  " + class_sentence(c) + "\n";
  for (const ClassAnalysis& k : c.conditions) {
    ClassAnalysis named = k;
    named.name = c.name + " under " + k.condition;
    out += "  " + class_sentence(named) + "\n";
  }
}

}  // namespace

std::string render_analysis_table(const std::vector<ClassAnalysis>& classes, bool complete, bool wide) {
  std::string out = classes.empty() ? "" : "In short:\n";
  for (const auto& c : classes) sentences(out, c);
  if (!classes.empty()) out += "\n";
  for (const auto& c : classes) {
    out += fmt::format("Class {}: baseline {}, statistic {} per trial, margin ±{}%, {} complete rounds: {}\n", escape_control(c.name),
                       escape_control(c.baseline), c.statistic, c.margin_pct, c.rounds_done, c.stop_words);
    out += fmt::format("  plan: looks at rounds {}; each look's ratio CI at {:.3f}% (Pocock boundary z {:.3f}, "
                       "family {:g}% over {} comparison{})\n",
                       fmt::join(c.looks, ", "), c.look_confidence * 100, c.boundary_z, c.family_confidence * 100,
                       c.comparisons, c.comparisons == 1 ? "" : "s");
    if (wide) wide_rows(out, c);
    else compact_rows(out, c);
    if (c.noise_floor_pct)
      out += fmt::format("  noise floor: identical placements differ by up to {:.2f}% here (A/A control)\n", *c.noise_floor_pct);
    for (const auto& w : c.warnings) out += "  warning: " + w + "\n";
    condition_rows(out, c, wide);
  }
  out += complete ? "" : "(run not complete: statistics of the trials finished so far)\n";
  return out;
}

}  // namespace placebench::harness
