// Hodges-Lehmann shift estimates with the confidence intervals that invert the rank tests
// (Hollander & Wolfe, "Nonparametric Statistical Methods", 3rd ed.: one sample 3.2-3.3, two samples 4.2-4.3).
//   one sample:  estimate = median of the M = n(n+1)/2 Walsh averages (d_i + d_j)/2, i <= j;
//                CI = [W_(C), W_(M+1-C)], C - 1 = largest c with P(T+ <= c) <= a/2 (signed-rank null of n).
//   two samples: estimate = median of the M = m n differences y_j - x_i;
//                CI = [D_(C), D_(M+1-C)], C - 1 = largest c with P(U <= c) <= a/2 (Mann-Whitney null of m, n).
// Exact null for n <= kSignedRankExactMaxN (both m, n <= kRankSumExactMaxN, common.h); above, the normal
// approximation with continuity correction, C = floor(mu + 1/2 - z sigma), i.e. mu - z sigma rounded.
// Ties and zeros: all observations are kept (a zero difference is only zero at shift 0, not at the
// bounds); the no-ties null is used, so with heavily tied data the coverage is approximate.
#pragma once
#include <cstdint>
#include <span>

#include "placebench/stats/common.h"

namespace placebench::stats {

struct ShiftCi {
  double estimate = 0.0;              // Hodges-Lehmann estimate
  double lower = 0.0;
  double upper = 0.0;
  std::int64_t count = 0;             // M: Walsh averages or pairwise differences
  std::int64_t lower_rank = 0;        // 1-based ranks among the M values: C and M + 1 - C
  std::int64_t upper_rank = 0;
  double confidence = 0.0;            // requested
  double achieved_confidence = 0.0;   // 1 - 2 P(T <= C - 1) under the null used
  bool coverage_met = true;           // false: too few observations; CI is [min, max] of the M values
  Method method = Method::kExact;     // kExact or kNormalApprox
};

// One-sample (paired) shift: location of d. Throws std::invalid_argument on empty input, NaN or
// infinite values, confidence outside (0, 1).
ShiftCi hodges_lehmann_one_sample(std::span<const double> d, double confidence, Method method = Method::kAuto);

// Two-sample shift of y relative to x (positive: y is larger). Same errors as above.
ShiftCi hodges_lehmann_two_sample(std::span<const double> x, std::span<const double> y, double confidence,
                                  Method method = Method::kAuto);

}  // namespace placebench::stats
