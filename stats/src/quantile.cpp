// Quantile estimates and their order-statistic confidence intervals (Le Boudec, "Performance Evaluation
// of Computer and Communication Systems", 2.2: Thm 2.1 for the exact ranks, and its large-n normal
// approximation, for the median j = floor(n/2 - 0.98 sqrt(n)), k = ceil(n/2 + 1 + 0.98 sqrt(n)) at 95%).
#include "placebench/stats/quantile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "placebench/stats/normal.h"
#include "placebench/stats/null_distributions.h"
#include "validate.h"

namespace placebench::stats {
namespace {

struct Ranks {
  std::int64_t lower = 0;  // 1-based, possibly < 1 or > n before clamping
  std::int64_t upper = 0;
};

Method choose_method(Method requested, std::size_t n, double q) {
  if (requested != Method::kAuto) return requested;
  const double variance = static_cast<double>(n) * q * (1.0 - q);
  if (n <= kQuantileExactMaxN || variance < kQuantileNormalMinVariance) return Method::kExact;
  return Method::kNormalApprox;
}

// P(B >= l) and P(B <= u - 1) with B ~ Binomial(n, q) the number of observations below xi_q, so the
// coverage of [x_(l), x_(u)] is B(u - 1) - B(l - 1).
Ranks exact_ranks(std::int64_t n, double q, double tail) {
  return {binomial_ppf(n, q, tail), binomial_isf(n, q, tail) + 1};
}

Ranks normal_ranks(std::int64_t n, double q, double tail) {
  const double z = normal_quantile(1.0 - tail);
  const double mean = static_cast<double>(n) * q;
  const double spread = z * std::sqrt(mean * (1.0 - q));
  return {static_cast<std::int64_t>(std::floor(mean - spread)),
          static_cast<std::int64_t>(std::ceil(mean + spread)) + 1};
}

double coverage(Method method, std::int64_t n, double q, const Ranks& r) {
  if (method == Method::kExact) return binomial_cdf(n, q, r.upper - 1) - binomial_cdf(n, q, r.lower - 1);
  // Normal approximation of the same binomial probability, with continuity correction.
  const double mean = static_cast<double>(n) * q, sd = std::sqrt(mean * (1.0 - q));
  const auto cdf = [&](std::int64_t k) {
    if (k < 0) return 0.0;
    if (k >= n) return 1.0;
    return normal_cdf((static_cast<double>(k) + 0.5 - mean) / sd);
  };
  return cdf(r.upper - 1) - cdf(r.lower - 1);
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double quantile_estimate_sorted(std::span<const double> sorted, double q) {
  detail::require_non_empty("quantile_estimate_sorted", "sample", sorted.size());
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

namespace {

// The interval for n observations, with the order statistics read through `at` (0-based: the k-th
// smallest), so that a sorted sample and one whose needed order statistics were selected share it.
template <class At>
QuantileCi order_statistic_ci(std::size_t size, double q, double confidence, Method method, At at) {
  const auto n = static_cast<std::int64_t>(size);
  const double tail = (1.0 - confidence) / 2.0;
  QuantileCi ci;
  ci.q = q;
  ci.confidence = confidence;
  ci.n = size;
  const double h = static_cast<double>(size - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, size - 1);
  ci.estimate = at(lo) + (h - static_cast<double>(lo)) * (at(hi) - at(lo));  // quantile_estimate_sorted
  ci.method = choose_method(method, size, q);
  Ranks r = ci.method == Method::kExact ? exact_ranks(n, q, tail) : normal_ranks(n, q, tail);
  ci.coverage_met = r.lower >= 1 && r.upper <= n;
  r.lower = std::clamp<std::int64_t>(r.lower, 1, n);
  r.upper = std::clamp<std::int64_t>(r.upper, 1, n);
  ci.lower_rank = r.lower;
  ci.upper_rank = r.upper;
  ci.lower = at(static_cast<std::size_t>(r.lower - 1));
  ci.upper = at(static_cast<std::size_t>(r.upper - 1));
  ci.achieved_confidence = coverage(ci.method, n, q, r);
  return ci;
}

void require_ci_arguments(std::size_t n, double q, double confidence) {
  constexpr std::string_view kWhere = "quantile_ci";
  detail::require_non_empty(kWhere, "sample", n);
  detail::require_probability_open(kWhere, "q", q);
  detail::require_confidence(kWhere, confidence);
}

}  // namespace

QuantileCi quantile_ci_sorted(std::span<const double> sorted, double q, double confidence, Method method) {
  detail::require_non_empty("quantile_ci", "sample", sorted.size());
  detail::require_finite("quantile_ci", "sample", sorted);
  if (!std::is_sorted(sorted.begin(), sorted.end()))
    throw std::invalid_argument("quantile_ci_sorted: sample is not sorted ascending; call quantile_ci instead");
  require_ci_arguments(sorted.size(), q, confidence);
  return order_statistic_ci(sorted.size(), q, confidence, method, [&](std::size_t k) { return sorted[k]; });
}

// Selection instead of a sort: the interval reads at most four order statistics, and each is put in
// place by nth_element on what lies right of the one before (O(n) expected in all; a full sort of a
// million values costs several times more). The order statistics, and so the result, are the sort's.
QuantileCi quantile_ci(std::vector<double> sample, double q, double confidence, Method method) {
  detail::require_non_empty("quantile_ci", "sample", sample.size());
  detail::require_finite("quantile_ci", "sample", sample);
  require_ci_arguments(sample.size(), q, confidence);
  // Which order statistics the interval reads: a dry run that records them.
  std::vector<std::size_t> needed;
  order_statistic_ci(sample.size(), q, confidence, method, [&](std::size_t k) {
    needed.push_back(k);
    return 0.0;
  });
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  auto from = sample.begin();
  for (std::size_t k : needed) {
    const auto nth = sample.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(from, nth, sample.end());
    from = nth + 1;
  }
  return order_statistic_ci(sample.size(), q, confidence, method, [&](std::size_t k) { return sample[k]; });
}

SampleSummary summarize(std::vector<double> sample, double confidence) {
  constexpr std::string_view kWhere = "summarize";
  detail::require_non_empty(kWhere, "sample", sample.size());
  detail::require_finite(kWhere, "sample", sample);
  detail::require_confidence(kWhere, confidence);
  std::sort(sample.begin(), sample.end());
  SampleSummary s;
  s.n = sample.size();
  s.min = sample.front();
  s.max = sample.back();
  s.mean = std::accumulate(sample.begin(), sample.end(), 0.0) / static_cast<double>(s.n);
  double squares = 0.0;  // two-pass variance: no cancellation
  for (double x : sample) squares += (x - s.mean) * (x - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0.0;
  s.median = quantile_ci_sorted(sample, 0.5, confidence);
  s.p90 = quantile_ci_sorted(sample, 0.9, confidence);
  s.p99 = quantile_ci_sorted(sample, 0.99, confidence);
  return s;
}

}  // namespace placebench::stats
