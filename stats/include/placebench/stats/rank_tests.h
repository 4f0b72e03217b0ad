// Two-sided p-values of the Wilcoxon signed-rank and Mann-Whitney (Wilcoxon rank-sum) tests
// (Hollander & Wolfe, 3rd ed., 3.1 and 4.1). Midranks for ties.
//   exact (n <= 50 non-zero differences; both sizes <= 50): the permutation distribution given the
//     (mid)ranks, i.e. the classical exact null without ties and the exact conditional null with ties;
//     p = min(1, 2 min(P(T <= t), P(T >= t))).
//   normal approximation above: tie-corrected variance and continuity correction 1/2,
//     p = min(1, 2 Phi(-(|t - mu| - 1/2) / sigma)).
// Signed-rank zeros are dropped before ranking (Wilcoxon's convention, scipy's zero_method="wilcox").
#pragma once
#include <cstddef>
#include <span>

#include "placebench/stats/common.h"

namespace placebench::stats {

struct RankTest {
  double statistic = 0.0;         // signed rank: R+ (sum of ranks of d > 0); rank sum: U_x (see below)
  double p_value = 1.0;           // two-sided
  double z = 0.0;                 // standardised statistic (continuity-corrected); 0 for exact tests
  std::size_t n_used = 0;         // signed rank: non-zero differences; rank sum: m + n
  bool has_ties = false;
  Method method = Method::kExact; // kExact or kNormalApprox
};

// Signed-rank test of H0: d is symmetric about 0. Throws std::invalid_argument on empty input or NaN.
// With every difference zero, p = 1.
RankTest wilcoxon_signed_rank(std::span<const double> d, Method method = Method::kAuto);

// Rank-sum test of H0: x and y have the same distribution. Statistic U_x = #{x_i > y_j} + #{x_i == y_j} / 2
// (scipy's U1). Throws std::invalid_argument on an empty sample or NaN.
RankTest mann_whitney_u(std::span<const double> x, std::span<const double> y, Method method = Method::kAuto);

}  // namespace placebench::stats
