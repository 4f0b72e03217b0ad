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

// Dependence of the rounds (docs/statistics.md, "Dependent rounds"). Positive dependence makes an
// independent-rounds CI too narrow, and in 10-30 rounds the lag-1 autocorrelation r1 cannot be estimated
// well enough to correct it from its point value (with AR(1) rho 0.8, a third of A/A runs ended in a false
// "different" that way). So the correction uses an upper bound on rho:
//   rho_hat   = clamp((n r1 + 1) / (n - 4), 0, 0.9)   (r1's small-sample bias, E[r1] ~ rho - (1 + 4 rho) / n,
//                                                        Marriott & Pope 1954, inverted)
//   rho_upper = min(0.9, rho_hat + z_0.90 sqrt(max(1 - rho_hat^2, 0.05) / n))   (r1's sd ~ sqrt((1 - rho^2) / n))
//   ci_inflation = sqrt((1 + rho_upper) / (1 - rho_upper))   (the AR(1) variance inflation of a mean)
//   effective_rounds = n (1 - rho_upper) / (1 + rho_upper)
// A look with fewer than kMinEffectiveRounds effective rounds cannot decide (the dependence cannot be
// excluded yet: a variance from fewer effective rounds is itself too noisy for the look's boundary).
// `flagged` reports strong evidence of dependence: r1 > z_0.99 / sqrt(n) (one-sided test of independence
// at 1%); the correction acts whether or not it is flagged.
inline constexpr double kMinEffectiveRounds = 10.0;
struct Dependence {
  std::optional<double> lag1;  // none below 4 rounds or with zero variance
  bool flagged = false;
  double rho_estimate = 0.9;   // rho_hat (0.9 when r1 cannot be computed)
  double rho_upper = 0.9;      // the bound the correction assumes (0.9 when r1 cannot be computed)
  double ci_inflation = 1.0;   // >= 1
  double effective_rounds = 0.0;
  bool estimable() const { return effective_rounds >= kMinEffectiveRounds; }
};
Dependence round_dependence(std::span<const double> log_ratios);

// The smallest true effects (percent, each side: below < 0 < above) that the plan's last look declares
// beyond the margin with 90% power. The margin and the interval are symmetric on the log scale, so the
// two sides differ in percent: at margin 2% and 4% noise, -4.0% and +4.2%.
struct Detectable {
  double below_pct = 0.0;  // the statistic lower than the baseline's by this much (negative)
  double above_pct = 0.0;  // ... higher by this much (positive)
};

struct Look {
  int rounds = 0;
  bool at_planned_look = false;
  int look_index = 0;          // 1-based index of the last planned look reached (0: before the first)
  double confidence = 0.0;     // look_confidence(plan)
  PairedComparison comparison; // ratio_pct widened by dependence.ci_inflation
  Dependence dependence;
  Verdict verdict = Verdict::kInconclusive;  // only decided at a planned look
  bool held = false;           // the widened CI would decide, but the effective rounds are too few
  StopReason reason = StopReason::kContinue;
  double round_sd = 0.0;       // sd of the per-round log ratios
  std::optional<Detectable> detectable;  // smallest effects the whole plan finds with 90% power here
};

// One look after baseline.size() == arm.size() rounds (per-round statistic of each arm, paired by round,
// in round order). The verdict is classify_verdict on the (dependence-widened) percent CI when the
// rounds are a planned look, the CI's coverage is met and the dependence is estimable; else
// inconclusive (held when only the last condition failed). Throws as compare_paired.
Look evaluate_look(std::span<const double> baseline, std::span<const double> arm, const SequentialPlan& plan);

// Smallest true effects (percent, both sides) that the plan's last look declares beyond the margin with
// probability `power`, at per-round log-ratio sd `round_sd` (normal approximation, the signed-rank
// test's efficiency 3/pi against the mean: HL intervals are sqrt(pi/3) times wider). nullopt for sd 0.
std::optional<Detectable> detectable_effect_pct(const SequentialPlan& plan, double round_sd, double ci_inflation = 1.0,
                                                double power = 0.9);

// A stop reason in words for a class: "decided at look 2 of 6 (20 rounds)", "max rounds spent (60), undecided".
std::string stop_words(StopReason reason, int rounds, const std::vector<int>& looks);

}  // namespace placebench::stats
