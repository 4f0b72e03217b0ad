// Sequential comparison over planned looks (sequential.h): Bonferroni across comparisons, a Pocock
// boundary across looks, verdicts only at planned looks, and the dependence check of the rounds.
#include "placebench/stats/sequential.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "placebench/stats/group_sequential.h"
#include "placebench/stats/normal.h"
#include "validate.h"

namespace placebench::stats {
namespace {

constexpr double kRhoCap = 0.9;  // the largest rho the correction assumes

double family_alpha_per_comparison(const SequentialPlan& plan) {
  detail::require_confidence("sequential plan", plan.confidence);
  if (plan.comparisons < 1)
    throw std::invalid_argument("sequential plan: comparisons must be >= 1; got " + std::to_string(plan.comparisons));
  return (1 - plan.confidence) / plan.comparisons;
}

// Widens a log-scale CI about its estimate by f (f >= 1).
void widen(ShiftCi& ci, double f) {
  ci.lower = ci.estimate - f * (ci.estimate - ci.lower);
  ci.upper = ci.estimate + f * (ci.upper - ci.estimate);
}

double sample_sd(std::span<const double> x) {
  if (x.size() < 2) return 0;
  double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kBeforeFirstLook: return "before_first_look";
    case StopReason::kContinue: return "continue";
    case StopReason::kDecided: return "decided";
    case StopReason::kMaxRounds: return "max_rounds";
  }
  return "unknown";
}

double look_confidence(const SequentialPlan& plan) {
  return pocock_look_confidence(plan.looks, family_alpha_per_comparison(plan));
}

double look_boundary_z(const SequentialPlan& plan) { return pocock_boundary(plan.looks, family_alpha_per_comparison(plan)); }

namespace {

// The correction's quantities from the bias-corrected estimate rho_hat of n rounds (sequential.h).
void bound_dependence(Dependence& dep, double rho_hat, std::size_t n) {
  const auto nd = static_cast<double>(n);
  dep.rho_estimate = rho_hat;
  const double spread = std::sqrt(std::max(1 - rho_hat * rho_hat, 0.05) / nd);
  dep.rho_upper = std::min(kRhoCap, rho_hat + normal_quantile(0.90) * spread);
  dep.ci_inflation = std::sqrt((1 + dep.rho_upper) / (1 - dep.rho_upper));
  dep.effective_rounds = nd * (1 - dep.rho_upper) / (1 + dep.rho_upper);
}

}  // namespace

Dependence round_dependence(std::span<const double> d) {
  Dependence dep;
  const std::size_t n = d.size();
  if (n < 4) {  // r1 cannot be computed: the worst case the correction allows
    dep.ci_inflation = std::sqrt((1 + kRhoCap) / (1 - kRhoCap));
    dep.effective_rounds = static_cast<double>(n) * (1 - kRhoCap) / (1 + kRhoCap);
    return dep;
  }
  double mean = std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(n);
  double c0 = 0, c1 = 0;
  for (std::size_t i = 0; i < n; ++i) c0 += (d[i] - mean) * (d[i] - mean);
  for (std::size_t i = 1; i < n; ++i) c1 += (d[i] - mean) * (d[i - 1] - mean);
  if (!(c0 > 0)) {  // every round the same ratio: nothing varies, so nothing depends
    bound_dependence(dep, 0.0, n);
    return dep;
  }
  const double r1 = c1 / c0;
  const auto nd = static_cast<double>(n);
  dep.lag1 = r1;
  dep.flagged = r1 > normal_quantile(0.99) / std::sqrt(nd);
  bound_dependence(dep, std::clamp((r1 * nd + 1) / (nd - 4.0), 0.0, kRhoCap), n);
  return dep;
}

std::optional<Detectable> detectable_effect_pct(const SequentialPlan& plan, double round_sd, double ci_inflation,
                                                double power) {
  if (!(round_sd > 0) || !std::isfinite(round_sd)) return std::nullopt;
  const double c = look_boundary_z(plan);
  const double se = round_sd * std::sqrt(M_PI / 3) * ci_inflation / std::sqrt(static_cast<double>(plan.looks.back()));
  const double reach = (c + normal_quantile(power)) * se;
  // The margin is crossed on the log scale: below at log(1 - m), above at log(1 + m).
  return Detectable{std::expm1(std::log1p(-plan.margin_pct / 100) - reach) * 100,
                    std::expm1(std::log1p(plan.margin_pct / 100) + reach) * 100};
}

Look evaluate_look(std::span<const double> baseline, std::span<const double> arm, const SequentialPlan& plan) {
  Look look;
  look.rounds = static_cast<int>(baseline.size());
  look.confidence = look_confidence(plan);
  look.comparison = compare_paired(baseline, arm, look.confidence);
  std::vector<double> d(baseline.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = std::log(arm[i] / baseline[i]);
  look.round_sd = sample_sd(d);
  look.dependence = round_dependence(d);
  if (look.dependence.ci_inflation > 1) {
    widen(look.comparison.log_ratio, look.dependence.ci_inflation);
    look.comparison.ratio_pct = to_percent(look.comparison.log_ratio);
  }
  for (std::size_t k = 0; k < plan.looks.size(); ++k)
    if (plan.looks[k] <= look.rounds) look.look_index = static_cast<int>(k + 1);
  look.at_planned_look = look.look_index > 0 && plan.looks[static_cast<std::size_t>(look.look_index - 1)] == look.rounds;
  const PercentCi& ci = look.comparison.ratio_pct;
  // A CI that could not reach the look's confidence (too few rounds) never decides anything; one from
  // too few effective rounds is held.
  if (look.at_planned_look && look.comparison.log_ratio.coverage_met) {
    const Verdict v = classify_verdict(ci.lower, ci.upper, plan.margin_pct, plan.higher_is_better);
    look.held = v != Verdict::kInconclusive && !look.dependence.estimable();
    if (!look.held) look.verdict = v;
  }
  if (look.verdict != Verdict::kInconclusive) look.reason = StopReason::kDecided;
  else if (look.rounds >= plan.looks.back()) look.reason = StopReason::kMaxRounds;
  else if (look.look_index == 0) look.reason = StopReason::kBeforeFirstLook;
  else look.reason = StopReason::kContinue;
  // What the last look will find: the correction there, from this look's estimate of rho.
  Dependence at_last;
  bound_dependence(at_last, look.dependence.rho_estimate, static_cast<std::size_t>(plan.looks.back()));
  look.detectable = detectable_effect_pct(plan, look.round_sd, at_last.ci_inflation);
  return look;
}

std::string stop_words(StopReason reason, int rounds, const std::vector<int>& looks) {
  const auto k = static_cast<std::size_t>(std::count_if(looks.begin(), looks.end(), [&](int r) { return r <= rounds; }));
  switch (reason) {
    case StopReason::kDecided: return fmt::format("decided at look {} of {} ({} rounds)", k, looks.size(), rounds);
    case StopReason::kMaxRounds: return fmt::format("max rounds spent ({}), undecided", rounds);
    case StopReason::kBeforeFirstLook:
      return fmt::format("{} rounds, before the first look at {}", rounds, looks.empty() ? 0 : looks.front());
    case StopReason::kContinue:
      return k < looks.size() ? fmt::format("undecided after {} rounds; next look at {}", rounds, looks[k])
                              : fmt::format("undecided after {} rounds", rounds);
  }
  return "unknown";
}

}  // namespace placebench::stats
