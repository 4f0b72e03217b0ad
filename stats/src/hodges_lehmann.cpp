// Hodges-Lehmann estimates and rank-test confidence intervals (Hollander & Wolfe, 3rd ed.:
// one sample 3.2 (3.21), two samples 4.2 (4.24)); critical values from null_distributions.h, large-sample
// ranks from the normal approximation with continuity correction.
#include "placebench/stats/hodges_lehmann.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "placebench/stats/normal.h"
#include "placebench/stats/null_distributions.h"
#include "placebench/stats/selection.h"
#include "validate.h"

namespace placebench::stats {
namespace {

// C (1-based rank of the lower bound) and the achieved confidence, from a null pmf of the statistic.
struct Critical {
  std::int64_t c = 0;
  double achieved = 0.0;
};

Critical exact_critical(const std::vector<double>& pmf, double tail) {
  const std::int64_t c_minus_1 = largest_lower_critical(pmf, tail);
  Critical k;
  k.c = c_minus_1 + 1;
  k.achieved = 1.0 - 2.0 * pmf_lower_tail(pmf, std::max<std::int64_t>(k.c, 1) - 1);
  return k;
}

// P(T <= c) ~ Phi((c + 1/2 - mu) / sigma); C - 1 = largest c with that <= a/2 gives C = floor(mu + 1/2 - z sigma).
Critical normal_critical(double mu, double sigma, double tail) {
  const double z = normal_quantile(1.0 - tail);
  Critical k;
  k.c = static_cast<std::int64_t>(std::floor(mu + 0.5 - z * sigma));
  const double below = normal_cdf((static_cast<double>(std::max<std::int64_t>(k.c, 1) - 1) + 0.5 - mu) / sigma);
  k.achieved = 1.0 - 2.0 * below;
  return k;
}

std::vector<std::int64_t> ranks_1_to(std::size_t n) {
  std::vector<std::int64_t> r(n);
  std::iota(r.begin(), r.end(), std::int64_t{1});
  return r;
}

// Fills ranks, bounds and the median of the M values, given C and a k-th-smallest selector.
template <typename Select>
void fill(ShiftCi& ci, const Critical& k, Select&& select) {
  const std::int64_t m = ci.count;
  ci.estimate = m % 2 == 1 ? select((m + 1) / 2) : (select(m / 2) + select(m / 2 + 1)) / 2.0;
  ci.coverage_met = k.c >= 1;
  ci.lower_rank = std::clamp<std::int64_t>(k.c, 1, m);
  ci.upper_rank = m + 1 - ci.lower_rank;
  ci.lower = select(ci.lower_rank);
  ci.upper = select(ci.upper_rank);
  ci.achieved_confidence = k.achieved;
}

}  // namespace

ShiftCi hodges_lehmann_one_sample(std::span<const double> d, double confidence, Method method) {
  constexpr const char* kWhere = "hodges_lehmann_one_sample";
  detail::require_non_empty(kWhere, "d", d.size());
  detail::require_finite(kWhere, "d", d);
  detail::require_confidence(kWhere, confidence);
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double tail = (1.0 - confidence) / 2.0;

  ShiftCi ci;
  ci.confidence = confidence;
  ci.count = walsh_count(n);
  ci.method = detail::resolve_method(method, n <= kSignedRankExactMaxN, n, detail::kSignedRankExactLimit, kWhere);
  const double nn = static_cast<double>(n);
  const Critical k = ci.method == Method::kExact
                         ? exact_critical(signed_rank_pmf(ranks_1_to(n)), tail)
                         : normal_critical(nn * (nn + 1) / 4, std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24), tail);
  fill(ci, k, [&](std::int64_t r) { return kth_walsh_average(sorted, r); });
  return ci;
}

ShiftCi hodges_lehmann_two_sample(std::span<const double> x, std::span<const double> y, double confidence,
                                  Method method) {
  constexpr const char* kWhere = "hodges_lehmann_two_sample";
  detail::require_non_empty(kWhere, "x", x.size());
  detail::require_non_empty(kWhere, "y", y.size());
  detail::require_finite(kWhere, "x", x);
  detail::require_finite(kWhere, "y", y);
  detail::require_confidence(kWhere, confidence);
  std::vector<double> xs(x.begin(), x.end()), ys(y.begin(), y.end());
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  const double tail = (1.0 - confidence) / 2.0;
  const std::size_t small = std::min(xs.size(), ys.size()), pooled = xs.size() + ys.size();

  ShiftCi ci;
  ci.confidence = confidence;
  ci.count = static_cast<std::int64_t>(xs.size()) * static_cast<std::int64_t>(ys.size());
  const bool exact_size = xs.size() <= kRankSumExactMaxN && ys.size() <= kRankSumExactMaxN;
  ci.method = detail::resolve_method(method, exact_size, small * pooled, detail::kRankSumExactLimit, kWhere);
  Critical k;
  if (ci.method == Method::kExact) {
    // Null of U = R - m(m+1)/2 for the smaller sample's rank sum R: shift the rank-sum pmf.
    std::vector<double> pmf = rank_sum_pmf(ranks_1_to(pooled), small);
    const auto offset = static_cast<std::ptrdiff_t>(small * (small + 1) / 2);
    pmf.erase(pmf.begin(), pmf.begin() + offset);
    k = exact_critical(pmf, tail);
  } else {
    const double m = static_cast<double>(xs.size()), n = static_cast<double>(ys.size());
    k = normal_critical(m * n / 2, std::sqrt(m * n * (m + n + 1) / 12), tail);
  }
  fill(ci, k, [&](std::int64_t r) { return kth_pairwise_difference(xs, ys, r); });
  return ci;
}

}  // namespace placebench::stats
