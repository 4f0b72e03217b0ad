// Statistics and verdicts of a run (complete or not): per class and arm, pooled step-time quantiles
// with CIs, the paired comparison against the baseline over rounds, the verdict, and whether the class
// may stop (sequential rule, docs/statistics.md). `placebench compare` prints it; summary.json holds it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/harness/runner/config.h"

namespace placebench::harness {

struct ArmAnalysis {
  std::string arm;
  int n_rounds = 0;                  // rounds with both this arm and the baseline
  bool measured = false;             // it has steps: the quantiles below are set (null in JSON, "-" in the table)
  double median_ns = 0;              // pooled steps
  double median_ci_lo = 0, median_ci_hi = 0;
  double p90_ns = 0, p99_ns = 0, mean_ns = 0;
  bool compared = false;             // enough rounds for a paired comparison
  double ratio_pct = 0, ratio_lo = 0, ratio_hi = 0, half_width = 0, p_value = 1;
  double look_confidence = 0;
  std::string verdict = "inconclusive";
  bool stop = false;
  std::string stop_reason;
  int flagged_trials = 0;
};

struct ClassAnalysis {
  std::string name;
  std::string baseline;
  std::string statistic;
  double margin_pct = 0;
  int rounds_done = 0;               // complete rounds (every arm ran)
  std::vector<ArmAnalysis> arms;     // baseline first
  bool stop = false;                 // every compared arm may stop
  double holm_adjusted_p = 1;        // smallest arm p-value, Holm-adjusted across classes
};

std::vector<ClassAnalysis> analyze_run(const ExperimentConfig& config, const std::vector<nlohmann::json>& trials);

// Whether the trials finish the plan, as the runner ends a run: every class either ran max_rounds
// rounds or stopped (its sequential rule said stop after at least min_rounds). The `complete` of a
// summary rebuilt without a readable summary.json to take it from.
bool plan_finished(const ExperimentConfig& config, const std::vector<ClassAnalysis>& classes);

// summary.json / `compare --json`: {classes: [{name, baseline, statistic, margin_pct, rounds_done, stop,
// holm_adjusted_p, arms: [{arm, n_rounds, median, median_ci, p90, p99, mean, ratio_pct, ratio_ci_pct,
// p_value, verdict, stop_reason, flagged_trials}]}], complete, trials}; an arm without trials has null
// quantiles (never 0).
nlohmann::json analysis_to_json(const std::vector<ClassAnalysis>& classes, bool complete, std::size_t trials);
std::string render_analysis_table(const std::vector<ClassAnalysis>& classes, bool complete);

}  // namespace placebench::harness
