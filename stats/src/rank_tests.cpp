// Wilcoxon signed-rank and Mann-Whitney tests, two-sided (Hollander & Wolfe, 3rd ed., 3.1 and 4.1).
// Ranks are kept doubled (2 x midrank = first + last position of a tie group), so the exact null with
// ties is an integer DP over doubled scores: the permutation distribution given the observed ranks.
#include "placebench/stats/rank_tests.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "placebench/stats/normal.h"
#include "placebench/stats/null_distributions.h"
#include "validate.h"

namespace placebench::stats {
namespace {

struct DoubledRanks {
  std::vector<std::int64_t> twice;  // 2 x midrank, in input order
  double tie_term = 0.0;            // sum over tie groups of t^3 - t
  bool has_ties = false;
};

DoubledRanks doubled_midranks(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  DoubledRanks r;
  r.twice.resize(values.size());
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first;
    while (last + 1 < order.size() && values[order[last + 1]] == values[order[first]]) ++last;
    const auto twice = static_cast<std::int64_t>(first + 1 + last + 1);
    for (std::size_t i = first; i <= last; ++i) r.twice[order[i]] = twice;
    const auto t = static_cast<double>(last - first + 1);
    r.tie_term += t * t * t - t;
    r.has_ties = r.has_ties || last > first;
    first = last + 1;
  }
  return r;
}

// Scores for the exact DP: plain ranks without ties (halves the DP), doubled midranks with ties.
std::vector<std::int64_t> scores(const DoubledRanks& r) {
  std::vector<std::int64_t> s = r.twice;
  if (!r.has_ties)
    for (auto& v : s) v /= 2;
  return s;
}

double exact_two_sided(const std::vector<double>& pmf, std::int64_t observed) {
  return std::min(1.0, 2.0 * std::min(pmf_lower_tail(pmf, observed), pmf_upper_tail(pmf, observed)));
}

// z = sign(t - mu) max(0, |t - mu| - 1/2) / sigma; p = min(1, 2 Phi(-|z|)).
void normal_two_sided(RankTest& test, double mu, double sigma) {
  test.method = Method::kNormalApprox;
  if (!(sigma > 0.0)) {  // every value tied: no evidence either way
    test.z = 0.0;
    test.p_value = 1.0;
    return;
  }
  const double deviation = test.statistic - mu;
  const double corrected = std::max(0.0, std::abs(deviation) - 0.5);
  test.z = std::copysign(corrected / sigma, deviation);
  test.p_value = std::min(1.0, 2.0 * normal_cdf(-corrected / sigma));
}

}  // namespace

RankTest wilcoxon_signed_rank(std::span<const double> d, Method method) {
  constexpr const char* kWhere = "wilcoxon_signed_rank";
  detail::require_non_empty(kWhere, "d", d.size());
  detail::require_no_nan(kWhere, "d", d);
  // The non-zero differences sorted by magnitude, sign kept (Wilcoxon's convention: zero differences
  // carry no sign and are dropped). One direct sort of the values: no index indirection.
  std::vector<double> signed_sorted;
  signed_sorted.reserve(d.size());
  for (double v : d)
    if (v != 0.0) signed_sorted.push_back(v);
  RankTest test;
  test.n_used = signed_sorted.size();
  test.method = detail::resolve_method(method, test.n_used <= kSignedRankExactMaxN, test.n_used,
                                       detail::kSignedRankExactLimit, kWhere);
  if (test.n_used == 0) return test;  // all zero: statistic 0, p = 1
  std::sort(signed_sorted.begin(), signed_sorted.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });

  // Tie groups of |d|: each member's doubled midrank is first + last + 2 (1-based ranks first + 1 .. last + 1).
  std::vector<std::int64_t> twice(test.method == Method::kExact ? signed_sorted.size() : 0);  // the exact null's scores
  double tie_term = 0.0;
  std::int64_t plus_twice = 0;
  for (std::size_t first = 0; first < signed_sorted.size();) {
    std::size_t last = first;
    while (last + 1 < signed_sorted.size() && std::abs(signed_sorted[last + 1]) == std::abs(signed_sorted[first])) ++last;
    const auto group_twice = static_cast<std::int64_t>(first + last + 2);
    for (std::size_t i = first; i <= last; ++i) {
      if (!twice.empty()) twice[i] = group_twice;
      if (signed_sorted[i] > 0.0) plus_twice += group_twice;
    }
    const auto t = static_cast<double>(last - first + 1);
    tie_term += t * t * t - t;
    test.has_ties = test.has_ties || last > first;
    first = last + 1;
  }
  test.statistic = static_cast<double>(plus_twice) / 2.0;
  const double n = static_cast<double>(test.n_used);
  if (test.method == Method::kExact) {
    const std::int64_t observed = test.has_ties ? plus_twice : plus_twice / 2;
    test.p_value = exact_two_sided(signed_rank_pmf(scores(DoubledRanks{twice, tie_term, test.has_ties})), observed);
    return test;
  }
  const double variance = (n * (n + 1) * (2 * n + 1) - tie_term / 2.0) / 24.0;
  normal_two_sided(test, n * (n + 1) / 4.0, std::sqrt(variance));
  return test;
}

RankTest mann_whitney_u(std::span<const double> x, std::span<const double> y, Method method) {
  constexpr const char* kWhere = "mann_whitney_u";
  detail::require_non_empty(kWhere, "x", x.size());
  detail::require_non_empty(kWhere, "y", y.size());
  detail::require_no_nan(kWhere, "x", x);
  detail::require_no_nan(kWhere, "y", y);
  std::vector<double> pooled(x.begin(), x.end());
  pooled.insert(pooled.end(), y.begin(), y.end());
  const DoubledRanks ranks = doubled_midranks(pooled);
  const std::size_t m = x.size(), n = y.size(), small = std::min(m, n);

  RankTest test;
  test.n_used = m + n;
  test.has_ties = ranks.has_ties;
  const bool small_sizes = m <= kRankSumExactMaxN && n <= kRankSumExactMaxN;
  test.method = detail::resolve_method(method, small_sizes, small * (m + n), detail::kRankSumExactLimit, kWhere);
  const auto y_begin = ranks.twice.begin() + static_cast<std::ptrdiff_t>(m);
  const std::int64_t x_twice = std::accumulate(ranks.twice.begin(), y_begin, std::int64_t{0});
  const std::int64_t y_twice = std::accumulate(y_begin, ranks.twice.end(), std::int64_t{0});
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  test.statistic = static_cast<double>(x_twice) / 2.0 - md * (md + 1) / 2.0;  // U_x
  if (test.method == Method::kExact) {
    // Rank sum of the smaller sample against the null of a random subset of that size.
    const std::int64_t twice = m <= n ? x_twice : y_twice;
    const std::int64_t observed = ranks.has_ties ? twice : twice / 2;
    test.p_value = exact_two_sided(rank_sum_pmf(scores(ranks), small), observed);
    return test;
  }
  const double pooled_n = md + nd;
  const double variance = md * nd / 12.0 * ((pooled_n + 1) - ranks.tie_term / (pooled_n * (pooled_n - 1)));
  normal_two_sided(test, md * nd / 2.0, std::sqrt(variance));
  return test;
}

}  // namespace placebench::stats
