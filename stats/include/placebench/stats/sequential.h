// Sequential arm-versus-baseline comparison with a few planned looks (docs/statistics.md, "Repeated
// looks"). The family is every compared (class, arm) pair of a run and every planned look:
//   - Bonferroni over the m comparisons: each gets alpha / m;
//   - a two-sided Pocock group-sequential boundary over its K planned looks (group_sequential.h): each
//     look's CI is at the same nominal confidence, chosen so that P(any look's CI misses) = alpha / m.
// So P(any false "different" verdict for any arm at any look) <= alpha, and the intervals shown are
// repeated confidence intervals: they cover together over all looks. A class stops at a planned look
// once every compared arm is decided (faster, slower or equivalent), or at the last look; there is no
// "precise enough" stop, so an interval that straddles a margin boundary never ends a class early.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "placebench/stats/comparison.h"
#include "placebench/stats/verdict.h"

namespace placebench::stats {

enum class StopReason {
  kBeforeFirstLook,  // fewer rounds than the first planned look
  kContinue,         // between looks, or undecided at a look before the last
  kDecided,          // verdict faster, slower or equivalent at a planned look
  kMaxRounds,        // the last look passed undecided
};

std::string_view to_string(StopReason reason);

struct SequentialPlan {
  std::vector<int> looks = {10, 20, 30, 40, 50, 60};  // planned look rounds, strictly increasing
  double confidence = 0.95;   // family-wise, over every comparison and look
  int comparisons = 1;        // m: compared (class, arm) pairs in the family
  double margin_pct = 2.0;    // equivalence margin
  bool higher_is_better = false;
};

// The nominal confidence of every look's CI: pocock_look_confidence(looks, (1 - confidence) / comparisons).
// Throws std::invalid_argument: bad looks, confidence outside (0, 1), comparisons < 1.
double look_confidence(const SequentialPlan& plan);
// The Pocock constant c behind it (|Z| >= c rejects at a look).
double look_boundary_z(const SequentialPlan& plan);

// Lag-1 autocorrelation r1 of the per-round log ratios (in round order). Positive dependence makes an
// independent-rounds CI too narrow, so whenever r1 > 0 the CI is widened about its estimate by
// sqrt((1 + rho) / (1 - rho)), the AR(1) variance inflation of a mean, with rho = (n r1 + 1) / (n - 4)
// (r1's small-sample bias, E[r1] ~ rho - (1 + 4 rho) / n, Marriott & Pope 1954, inverted; capped at 0.9).
// The rounds are flagged dependent when r1 > z_0.90 / sqrt(n) (one-sided test of independence).
struct Dependence {
  std::optional<double> lag1;  // none below 4 rounds or with zero variance
  bool flagged = false;
  double ci_inflation = 1.0;   // >= 1
};
Dependence round_dependence(std::span<const double> log_ratios);

struct Look {
  int rounds = 0;
  bool at_planned_look = false;
  int look_index = 0;          // 1-based index of the last planned look reached (0: before the first)
  double confidence = 0.0;     // look_confidence(plan)
  PairedComparison comparison; // ratio_pct widened by dependence.ci_inflation when flagged
  Dependence dependence;
  Verdict verdict = Verdict::kInconclusive;  // only decided at a planned look
  StopReason reason = StopReason::kContinue;
  double round_sd = 0.0;       // sd of the per-round log ratios
  std::optional<double> detectable_pct;  // smallest |effect| the whole plan finds with 90% power here
};

// One look after baseline.size() == arm.size() rounds (per-round statistic of each arm, paired by round,
// in round order). The verdict is classify_verdict on the (dependence-widened) percent CI when the
// rounds are a planned look and the CI's coverage is met, else inconclusive. Throws as compare_paired.
Look evaluate_look(std::span<const double> baseline, std::span<const double> arm, const SequentialPlan& plan);

// Smallest true effect (percent, magnitude) that the plan's last look declares beyond the margin with
// probability `power`, at per-round log-ratio sd `round_sd` (normal approximation, the signed-rank
// test's efficiency 3/pi against the mean: HL intervals are sqrt(pi/3) times wider). nullopt for sd 0.
std::optional<double> detectable_effect_pct(const SequentialPlan& plan, double round_sd, double ci_inflation = 1.0,
                                            double power = 0.9);

// A stop reason in words for a class: "decided at look 2 of 6 (20 rounds)", "max rounds spent (60), undecided".
std::string stop_words(StopReason reason, int rounds, const std::vector<int>& looks);

}  // namespace placebench::stats
