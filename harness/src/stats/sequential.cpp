// Sequential stopping with Bonferroni over looks (docs/statistics.md, "Repeated looks"): at most L looks,
// each CI at confidence 1 - alpha / L, so by the union bound P(some look gives a false verdict) <= alpha.
#include "placebench/harness/stats/sequential.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "validate.h"

namespace placebench::harness::stats {
namespace {

void require_rounds(int min_rounds, int max_rounds) {
  if (min_rounds < 1 || max_rounds < min_rounds)
    throw std::invalid_argument("sequential plan: need 1 <= min_rounds <= max_rounds; got min_rounds " +
                                std::to_string(min_rounds) + ", max_rounds " + std::to_string(max_rounds));
}

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kContinue: return "continue";
    case StopReason::kMinRounds: return "min_rounds";
    case StopReason::kDecided: return "decided";
    case StopReason::kPrecise: return "precise";
    case StopReason::kMaxRounds: return "max_rounds";
  }
  return "unknown";
}

double per_look_confidence(double confidence, int max_looks) {
  detail::require_confidence("per_look_confidence", confidence);
  if (max_looks < 1)
    throw std::invalid_argument("per_look_confidence: max_looks must be >= 1; got " + std::to_string(max_looks));
  return 1.0 - (1.0 - confidence) / max_looks;
}

int planned_looks(int min_rounds, int max_rounds) {
  require_rounds(min_rounds, max_rounds);
  return max_rounds - min_rounds + 1;
}

StopDecision should_stop(int rounds_done, int min_rounds, int max_rounds, Verdict verdict, double ci_half_width,
                         double target_half_width) {
  require_rounds(min_rounds, max_rounds);
  if (rounds_done < 0)
    throw std::invalid_argument("should_stop: rounds_done must be >= 0; got " + std::to_string(rounds_done));
  if (!(target_half_width > 0.0))
    throw std::invalid_argument("should_stop: target_half_width must be > 0; got " +
                                std::to_string(target_half_width));
  if (!(ci_half_width >= 0.0))
    throw std::invalid_argument("should_stop: ci_half_width must be >= 0 (infinity when unknown); got " +
                                std::to_string(ci_half_width));
  if (rounds_done >= max_rounds) return {true, StopReason::kMaxRounds};
  if (rounds_done < min_rounds) return {false, StopReason::kMinRounds};
  if (verdict != Verdict::kInconclusive) return {true, StopReason::kDecided};
  if (ci_half_width <= target_half_width) return {true, StopReason::kPrecise};
  return {false, StopReason::kContinue};
}

double look_confidence(const SequentialPlan& plan) {
  return per_look_confidence(bonferroni_confidence(plan.confidence, plan.classes),
                             planned_looks(plan.min_rounds, plan.max_rounds));
}

Look evaluate_look(std::span<const double> baseline, std::span<const double> arm, const SequentialPlan& plan) {
  Look look;
  look.rounds = static_cast<int>(baseline.size());
  look.confidence = look_confidence(plan);
  look.comparison = compare_paired(baseline, arm, look.confidence);
  const PercentCi& ci = look.comparison.ratio_pct;
  // A CI that could not reach the look's confidence (too few rounds) never decides anything.
  look.verdict = look.comparison.log_ratio.coverage_met
                     ? classify_verdict(ci.lower, ci.upper, plan.margin_pct, plan.higher_is_better)
                     : Verdict::kInconclusive;
  look.decision = should_stop(look.rounds, plan.min_rounds, plan.max_rounds, look.verdict, ci.half_width,
                              plan.target_half_width_pct);
  return look;
}

}  // namespace placebench::harness::stats
