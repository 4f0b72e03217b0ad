// Verdict from a ratio CI against an equivalence margin (two one-sided comparisons of the CI with -m and
// +m, as in equivalence testing: Schuirmann 1987), Holm's step-down adjustment and Bonferroni CI levels.
#include "placebench/stats/verdict.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "validate.h"

namespace placebench::stats {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSlower: return "slower";
    case Verdict::kEquivalent: return "equivalent";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "unknown";
}

Verdict classify_verdict(double lower_pct, double upper_pct, double margin_pct, bool higher_is_better) {
  if (std::isnan(lower_pct) || std::isnan(upper_pct) || lower_pct > upper_pct)
    throw std::invalid_argument("classify_verdict: CI [" + std::to_string(lower_pct) + ", " +
                                std::to_string(upper_pct) + "] is not an interval (lower <= upper, no NaN)");
  if (!(margin_pct >= 0.0) || !std::isfinite(margin_pct))
    throw std::invalid_argument("classify_verdict: margin_pct must be finite and >= 0; got " +
                                std::to_string(margin_pct));
  const bool below = upper_pct < -margin_pct;  // the arm's statistic is lower by more than the margin
  const bool above = lower_pct > margin_pct;   // ... higher by more than the margin
  if (below) return higher_is_better ? Verdict::kSlower : Verdict::kFaster;
  if (above) return higher_is_better ? Verdict::kFaster : Verdict::kSlower;
  if (lower_pct >= -margin_pct && upper_pct <= margin_pct) return Verdict::kEquivalent;
  return Verdict::kInconclusive;
}

HolmAdjustment holm_adjust(std::span<const double> p_values, double alpha) {
  constexpr std::string_view kWhere = "holm_adjust";
  detail::require_non_empty(kWhere, "p_values", p_values.size());
  detail::require_probability_open(kWhere, "alpha", alpha);
  for (std::size_t i = 0; i < p_values.size(); ++i)
    if (!(p_values[i] >= 0.0 && p_values[i] <= 1.0))
      throw std::invalid_argument("holm_adjust: p_values[" + std::to_string(i) + "] = " +
                                  std::to_string(p_values[i]) + " is not in [0, 1]");
  const std::size_t k = p_values.size();
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });

  HolmAdjustment h;
  h.alpha = alpha;
  h.adjusted_p.resize(k);
  h.reject.resize(k);
  h.step.resize(k);
  h.step_confidence.resize(k);
  double running_max = 0.0;
  bool still_rejecting = true;
  for (std::size_t s = 0; s < k; ++s) {
    const std::size_t cls = order[s];
    const auto remaining = static_cast<double>(k - s);  // k - step + 1 with a 1-based step
    running_max = std::max(running_max, std::min(1.0, remaining * p_values[cls]));
    still_rejecting = still_rejecting && p_values[cls] <= alpha / remaining;
    h.adjusted_p[cls] = running_max;
    h.reject[cls] = still_rejecting;
    h.step[cls] = static_cast<int>(s + 1);
    h.step_confidence[cls] = 1.0 - alpha / remaining;
  }
  return h;
}

double bonferroni_confidence(double confidence, int classes) {
  detail::require_confidence("bonferroni_confidence", confidence);
  if (classes < 1)
    throw std::invalid_argument("bonferroni_confidence: classes must be >= 1; got " + std::to_string(classes));
  return 1.0 - (1.0 - confidence) / classes;
}

}  // namespace placebench::stats
