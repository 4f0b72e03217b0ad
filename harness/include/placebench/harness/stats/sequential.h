// Sequential stopping of an arm-versus-baseline experiment: after each round from min_rounds on, the
// runner recomputes the paired comparison at a per-look confidence that pays for the repeated looks
// (Bonferroni over looks: with at most L looks each uses alpha / L, so P(any false verdict) <= alpha),
// classifies the verdict, and stops when the verdict is decided, the CI is narrow enough, or at max_rounds.
#pragma once
#include <span>
#include <string_view>

#include "placebench/harness/stats/comparison.h"
#include "placebench/harness/stats/verdict.h"

namespace placebench::harness::stats {

// 1 - (1 - confidence) / max_looks. Throws std::invalid_argument: confidence outside (0, 1), max_looks < 1.
double per_look_confidence(double confidence, int max_looks);

// Looks when the runner looks after every round from min_rounds to max_rounds: max_rounds - min_rounds + 1.
int planned_looks(int min_rounds, int max_rounds);

enum class StopReason {
  kContinue,     // keep going
  kMinRounds,    // fewer than min_rounds rounds: keep going whatever the CI says
  kDecided,      // verdict faster, slower or equivalent
  kPrecise,      // inconclusive, but the CI half-width reached the target
  kMaxRounds,    // budget spent
};

std::string_view to_string(StopReason reason);

struct StopDecision {
  bool stop = false;
  StopReason reason = StopReason::kContinue;
};

// Rule, in order: rounds_done >= max_rounds -> stop (kMaxRounds); rounds_done < min_rounds -> continue
// (kMinRounds); verdict != inconclusive -> stop (kDecided); ci_half_width <= target_half_width -> stop
// (kPrecise); else continue. The verdict and half-width (same unit as the target, e.g. percent) must come
// from a CI at per_look_confidence(...). An infinite half-width (coverage not met) never counts as precise.
// Throws std::invalid_argument: min_rounds < 1, max_rounds < min_rounds, rounds_done < 0,
// target_half_width <= 0, ci_half_width NaN or negative.
StopDecision should_stop(int rounds_done, int min_rounds, int max_rounds, Verdict verdict, double ci_half_width,
                         double target_half_width);

// Everything the runner needs for one arm's sequential experiment.
struct SequentialPlan {
  int min_rounds = 5;
  int max_rounds = 30;
  double confidence = 0.95;           // family-wise, over looks and classes
  int classes = 1;                    // classes compared at once (Bonferroni, verdict.h)
  double margin_pct = 2.0;            // equivalence margin
  double target_half_width_pct = 3.0;
  bool higher_is_better = false;      // true for throughput-like statistics
};

// Confidence of each look's CI: per_look_confidence(bonferroni_confidence(confidence, classes),
// planned_looks(min_rounds, max_rounds)).
double look_confidence(const SequentialPlan& plan);

struct Look {
  int rounds = 0;
  double confidence = 0.0;            // look_confidence(plan)
  PairedComparison comparison;
  Verdict verdict = Verdict::kInconclusive;
  StopDecision decision;
};

// One look after baseline.size() == arm.size() rounds (per-round statistic of each arm, paired by round):
// compare_paired at look_confidence(plan), classify_verdict on the percent CI (inconclusive when the CI's
// coverage is not met), should_stop. Throws as compare_paired and should_stop do.
Look evaluate_look(std::span<const double> baseline, std::span<const double> arm, const SequentialPlan& plan);

}  // namespace placebench::harness::stats
