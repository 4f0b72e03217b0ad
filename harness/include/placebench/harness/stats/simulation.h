// Monte Carlo check of the sequential rule (sequential.h) on a synthetic benchmark: the A/A false-verdict
// rate and the rounds a clear effect needs. Shared by the unit test and the benchmark; seeded and
// portable (mt19937_64 and our own Box-Muller, so results do not depend on the standard library).
//
// Model of one round r: a shared round effect s_r ~ N(0, round_sigma) (machine state, hits both arms),
// per arm an interaction e_{a,r} ~ N(0, arm_round_sigma); each arm runs steps_per_round steps with
// log step time = log(base_step_s) + log(1 + effect_a) + s_r + e_{a,r} + N(0, step_sigma). The per-round
// statistic is each arm's median step time; the baseline's effect is 0, the arm's is true_effect_pct.
#pragma once
#include <cstdint>
#include <vector>

#include "placebench/harness/stats/sequential.h"

namespace placebench::harness::stats {

struct SimulationConfig {
  int experiments = 200;
  std::uint64_t seed = 1;
  double true_effect_pct = 0.0;     // arm step time vs baseline; -10 = arm 10% faster
  int steps_per_round = 50;
  double base_step_s = 1e-3;
  double step_sigma = 0.10;         // log-scale sd of one step time
  double round_sigma = 0.05;        // shared per-round noise (cancels in the paired ratio)
  double arm_round_sigma = 0.02;    // per-round, per-arm noise (does not cancel)
  SequentialPlan plan;              // sequential rule; the fixed design runs plan.max_rounds with one look
};

struct ExperimentOutcome {
  Verdict sequential = Verdict::kInconclusive;
  int rounds_used = 0;
  StopReason stop_reason = StopReason::kContinue;
  Verdict fixed = Verdict::kInconclusive;   // all max_rounds rounds, one look at the family confidence
};

struct SimulationSummary {
  int experiments = 0;
  int faster = 0;                   // sequential verdicts
  int slower = 0;
  int equivalent = 0;
  int inconclusive = 0;
  double decisive_rate = 0.0;       // (faster + slower) / experiments: the A/A false-verdict rate
  double mean_rounds_fraction = 0.0;  // mean rounds_used / max_rounds
  double agreement_with_fixed = 0.0;  // fraction where sequential verdict == fixed-design verdict
  std::vector<ExperimentOutcome> outcomes;
};

// Per-round medians of one simulated experiment with max_rounds rounds: {baseline, arm}.
struct SimulatedRounds {
  std::vector<double> baseline;
  std::vector<double> arm;
};
SimulatedRounds simulate_rounds(const SimulationConfig& config, std::uint64_t experiment_seed);

// Runs config.experiments experiments (experiment i seeded from config.seed and i).
// Throws std::invalid_argument on a non-positive count, sigma < 0, or an effect <= -100%.
SimulationSummary simulate_sequential(const SimulationConfig& config);

}  // namespace placebench::harness::stats
