// Statistics and verdicts of a run (complete or not), per class and arm (docs/statistics.md):
//   - each arm's role: the baseline, a compared arm, an A/A control (a degenerate placement: it ran
//     where the baseline runs) or unrealised (a placement that was not verified); only compared arms
//     get verdicts, and only they count in the family;
//   - the class statistic over rounds (median of the per-trial statistics, order-statistic CI): rounds
//     are the unit of every interval beside a verdict; pooled step quantiles are kept as within-run;
//   - the paired comparison against the baseline at the plan's look confidence (sequential.h), the
//     dependence check of the rounds, the repeated p-value, Holm across every comparison of the run;
//   - whether the class stops (every compared arm decided at a planned look, or the last look).
// `placebench compare` prints it; summary.json holds it (summary_json.cpp is its one reader and writer).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::harness {

struct ArmAnalysis {
  std::string arm;
  std::string role = "compared";       // baseline | compared | control | unrealised
  std::string unrealised_reason;       // why a control or unrealised arm gives no verdict ("" otherwise)
  int n_rounds = 0;                    // rounds behind the ratio and verdict: the deciding look's, else every
                                       // round with both this arm and the baseline (the baseline: its rounds)
  int statistic_rounds = 0;            // rounds behind statistic_value (every trial of the arm)
  int flagged_trials = 0;
  // The class statistic over rounds: median of the per-trial statistic, CI from order statistics.
  bool has_statistic = false;
  double statistic_value = 0, statistic_ci_lo = 0, statistic_ci_hi = 0, statistic_ci_confidence = 0;
  std::string statistic_ci_method;
  // Pooled step times (within-run: steps of a trial are not independent), ns.
  bool measured = false;
  double median_ns = 0, within_run_ci_lo = 0, within_run_ci_hi = 0, p90_ns = 0, p99_ns = 0, mean_ns = 0;
  // The paired comparison against the baseline (ratio of the class statistic, percent).
  bool compared = false;
  double ratio_pct = 0, ratio_lo = 0, ratio_hi = 0, look_confidence = 0, p_value = 1;
  std::optional<double> repeated_p, holm_adjusted_p, lag1;
  std::optional<double> detectable_below_pct, detectable_pct;  // one-sided: below < 0, above > 0 (compared arms)
  bool dependence_flagged = false;     // every paired round so far: strong evidence of dependence (r1 test at 1%)
  double ci_inflation = 1;             // the dependence correction of the look shown
  double effective_rounds = 0;         // ... and its effective rounds
  bool held = false;                   // undecided only because the look's effective rounds were too few
  std::string verdict = "inconclusive";  // baseline | faster | slower | equivalent | inconclusive | control | unrealised
  std::optional<int> decided_look;     // 1-based planned look that decided the verdict (final from then on)
  std::vector<std::string> verdict_warnings;  // what later rounds found; never a change of the verdict
  std::string aa_check;                // controls with a ratio: "passed" | "failed" (its CI excludes 0); else ""
  bool stop = false;
  std::string stop_reason;             // "" for a control or unrealised arm (no verdict, no stop of its own)
  // Under a loaded condition (issue 32): this arm under load against the same arm in the class's first
  // (quiet) condition, paired by round; CI at the run's confidence, Bonferroni over the class's load
  // comparisons; verdict against the class margin (slower: the load costs this arm more than the margin).
  bool load_compared = false;
  int load_rounds = 0;
  double load_ratio_pct = 0, load_ratio_lo = 0, load_ratio_hi = 0, load_confidence = 0;
  std::string load_verdict;            // faster | slower | equivalent | inconclusive ("" when not compared)
};

// Per placement arm and hog series (one hog on one node at its doses, with the quiet condition at dose 0):
// the change of the class statistic per unit of the aggressor's measured dose -- GB/s of its STREAM
// triad (membw) or cores of CPU time (cpu) -- in percent of the fit's unloaded value. Fitted by least
// squares within each round, and the median of the per-round slopes with an order-statistic CI over
// rounds (docs/statistics.md#dose-response).
struct DoseResponse {
  std::string arm, hog, node;          // node: device | other
  std::string unit;                    // "%/(GB/s)" (membw) or "%/core" (cpu)
  int rounds = 0;                      // rounds with a slope (two doses or more measured apart)
  double slope_pct = 0, ci_lo = 0, ci_hi = 0, confidence = 0;
  double max_dose = 0;                 // the largest measured dose behind it (GB/s or cores)
};

struct ClassAnalysis {
  std::string name;
  std::string baseline;
  std::string statistic;
  std::string statistic_unit;          // "ns" (median, p99) or "steps/s" (throughput)
  double margin_pct = 0;
  int rounds_done = 0;                 // complete rounds (every arm ran)
  std::vector<int> looks;              // planned look rounds
  double look_confidence = 0;          // each look's CI
  double boundary_z = 0;               // the Pocock constant behind it
  int comparisons = 1;                 // m: compared arms in the whole run's family, as planned at the first look
  double family_confidence = 0.95;
  bool stop = false;
  std::string stop_reason;
  std::string stop_words;
  std::optional<double> holm_adjusted_p;   // smallest over the class's compared arms
  std::optional<double> noise_floor_pct;   // from an A/A control: largest |bound| of its ratio CI
  std::vector<std::string> warnings;
  std::vector<ArmAnalysis> arms;       // baseline first
  // Interference (issue 32; "" and empty for a class without conditions). The class's entry is its first
  // condition (quiet when listed); `conditions` holds the others, each a full analysis of the arms under
  // it (with the load comparison of each arm), and `dose_response` the slopes of every arm and hog series.
  std::string condition;               // this entry's condition
  std::string hog;                     // quiet | membw | cpu
  std::string hog_node;                // device | other ("" for quiet)
  int hog_threads = 0;                 // the dose as set
  std::optional<double> aggressor_gbps, aggressor_cores;  // the dose as measured: medians over its trials
  std::vector<ClassAnalysis> conditions;
  std::vector<DoseResponse> dose_response;
};

// Whether a condition's hog ran on the device's node although the condition names the `other` node (a
// one-NUMA machine): said by the warning describe_condition writes (kept in summary.json's warnings).
inline constexpr std::string_view kDegenerateHogWarning = "the hog's 'other' node is the device's node here";
bool has_degenerate_hog(const ClassAnalysis& condition);

struct RunSummary {
  std::vector<ClassAnalysis> classes;
  bool complete = false;
  std::size_t trials = 0;
};

// One entry per class of the config, in its order (a class with conditions: its first condition, the
// others in `conditions`; it stops when every condition's comparisons stop).
std::vector<ClassAnalysis> analyze_run(const ExperimentConfig& config, const std::vector<TrialRecord>& trials);

// Whether the trials finish the plan, as the runner ends a run: every class stopped (decided at a
// planned look, or its last look passed). The `complete` of a summary rebuilt from trials alone.
bool plan_finished(const std::vector<ClassAnalysis>& classes);

// summary.json (schema in docs/results-schema.md): the one writer and reader. summary_from_json checks
// every field and the schema version (InputError "PATH: KEY: problem; FIX").
nlohmann::json summary_to_json(const RunSummary& summary);
RunSummary summary_from_json(const nlohmann::json& j, const std::string& path, const std::string& fix);

// One sentence for a class: what the run decided, or why nothing and what would settle it (class_sentence.cpp;
// the report's first screen says the same, scripts/placebench_report/first_screen.py).
std::string class_sentence(const ClassAnalysis& c);

// The verdict table (`placebench compare`, `run`): first one sentence per class (class_sentence), then per class a header with the plan and the stop in
// words, per arm the verdict, the class statistic, the ratio and its CI, the detectable effects; then
// every warning of the class. The table's rows fit 100 columns; `wide` (--wide) has every column: the role,
// the statistic's CI over rounds, the rounds behind the ratio in their own column.
std::string render_analysis_table(const std::vector<ClassAnalysis>& classes, bool complete, bool wide = false);

}  // namespace placebench::harness
