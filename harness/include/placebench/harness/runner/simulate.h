// Monte Carlo of whole experiments through the real analysis path: synthetic trial lines, analyze_run
// after every round, classes stopped by the same rule as the runner (ClassAnalysis::stop). Shared by
// the tests and placebench-micro; seeded and portable (mt19937_64 with our own Box-Muller).
//
// Model of round r for class c: a shared round effect s_r ~ N(0, 0.05) hits every arm (it cancels in
// the paired ratio); each arm a adds u_{a,r}, an AR(1) series with coefficient ar_phi and stationary sd
// round_sd / sqrt(2), so that log(arm / baseline) per round has sd round_sd for independent rounds;
// the arm's true effect multiplies its statistic by (1 + effect_pct / 100). Trials of a degenerate arm
// carry the "degenerate" flag (as on a one-node machine), with the effect given (0 for a real A/A).
// A class with interference conditions (issue 32) runs every (arm, condition) cell per round, each its own
// series; "class/arm@condition" adds that condition's effect on the arm (multiplying), and a loaded
// trial records the aggressor's measured dose: threads x gbps_per_thread GB/s (membw) or threads cores.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "placebench/harness/runner/config.h"

namespace placebench::harness {

struct RunSimulation {
  int experiments = 200;
  std::uint64_t seed = 1;
  ExperimentConfig config;                    // classes, rounds, looks, confidence, margins
  double round_sd = 0.04;                     // sd of the per-round log ratio (independent rounds)
  double ar_phi = 0.0;                        // AR(1) coefficient of each arm's per-round noise
  std::map<std::string, double> effect_pct;   // "class/arm" -> true effect in percent (absent: 0)
  std::vector<std::string> degenerate;        // "class/arm" whose trials are flagged degenerate
  std::map<std::string, int> fails_from;      // "class/arm" -> first 0-based round whose placement fails
  double gbps_per_thread = 5.0;               // a membw hog thread's simulated achieved bandwidth
};

struct ArmTally {
  int faster = 0, slower = 0, equivalent = 0, inconclusive = 0, other = 0;  // other: control / unrealised
  int dependence_flagged = 0;
  int different_unflagged = 0;               // faster or slower with no dependence flag
  int aa_failed = 0;                         // a control whose A/A check failed
  double mean_rounds = 0.0;                  // rounds the arm's comparison used (its deciding look, or the last)
  double rate(int count, int experiments) const { return static_cast<double>(count) / experiments; }
};

struct SimulationResult {
  int experiments = 0;
  std::map<std::string, ArmTally> arms;      // "class/arm"
  int any_false_different = 0;               // experiments where some zero-effect arm was faster/slower
  int any_false_different_unflagged = 0;     // ... and that arm's rounds were not flagged dependent
  int any_flagged = 0;                       // experiments where some arm's rounds were flagged dependent
  // Interference conditions: per "class/arm@condition", the load comparison's verdicts (in ArmTally's
  // counts), and the experiments where some load comparison of zero effect said faster or slower.
  std::map<std::string, ArmTally> loads;
  int any_false_load = 0;
  double mean_rounds = 0.0;                  // rounds used per class, averaged over experiments and classes
  int max_rounds = 0;
};

// Throws std::invalid_argument: experiments < 1, round_sd < 0, |ar_phi| >= 1, an effect <= -100%.
SimulationResult simulate_runs(const RunSimulation& sim);

// The smallest fixed design (one look after n rounds, the same comparisons and margins) whose rate of
// `verdict` for arm `key` ("class/arm") reaches `power`; max_n + 1 when none up to max_n does.
int fixed_rounds_for_power(const RunSimulation& sim, const std::string& key, const std::string& verdict, double power,
                           int max_n);

// The default experiment's config (configs/default.yaml, compiled in) with its classes' arms.
ExperimentConfig default_experiment_config();

}  // namespace placebench::harness
