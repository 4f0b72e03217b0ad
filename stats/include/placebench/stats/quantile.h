// Per-sample statistics: quantile estimates with distribution-free confidence intervals from order
// statistics (Le Boudec, "Performance Evaluation of Computer and Communication Systems", 2.2, Thm 2.1),
// and the summary a trial reports (median, p90, p99, mean).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "placebench/stats/common.h"

namespace placebench::stats {

// Exact binomial ranks for n <= kQuantileExactMaxN, and also whenever n*q*(1-q) < kQuantileNormalMinVariance
// (the binomial is then too skewed for the normal approximation); Le Boudec's normal approximation otherwise.
inline constexpr std::size_t kQuantileExactMaxN = 70;
inline constexpr double kQuantileNormalMinVariance = 10.0;

struct QuantileCi {
  double q = 0.0;
  double confidence = 0.0;            // requested
  std::size_t n = 0;
  double estimate = 0.0;              // linear interpolation between order statistics (Hyndman-Fan type 7)
  double lower = 0.0;                 // x_(lower_rank)
  double upper = 0.0;                 // x_(upper_rank)
  std::int64_t lower_rank = 0;        // 1-based order statistic ranks
  std::int64_t upper_rank = 0;
  double achieved_confidence = 0.0;   // P(x_(l) <= xi_q <= x_(u)) for the ranks used
  bool coverage_met = true;           // false: n too small; ranks clamped to [1, n] (the sample range)
  Method method = Method::kExact;     // kExact or kNormalApprox
};

// Quantile estimate of sorted data (Hyndman-Fan type 7, numpy's default): h = (n-1) q,
// x_(floor h) + (h - floor h) (x_(floor h + 1) - x_(floor h)) with 0-based order statistics.
double quantile_estimate_sorted(std::span<const double> sorted, double q);
// The median of `values`, sorted or not: the middle value, or the mean of the middle two for an even count
// (type 7 at q = 0.5, as (a + b) / 2); NaN when empty. The one median of every reader and printer.
double median(std::vector<double> values);

// Confidence interval [x_(l), x_(u)] for the q-quantile at the given confidence, equal tails:
//   exact:  l = min{k : B(k) >= a/2},  u = 1 + min{k : 1 - B(k) <= a/2},  B = Binomial(n, q) CDF, a = 1 - conf
//   normal: l = floor(nq - z sqrt(nq(1-q))),  u = ceil(nq + z sqrt(nq(1-q))) + 1,  z = Phi^-1(1 - a/2)
// When l < 1 or u > n the interval is clamped to the sample range and coverage_met is false.
// Throws std::invalid_argument: empty sample, NaN or infinite values, q or confidence outside (0, 1),
// and (quantile_ci_sorted) a sample that is not sorted ascending.
QuantileCi quantile_ci(std::vector<double> sample, double q, double confidence, Method method = Method::kAuto);
QuantileCi quantile_ci_sorted(std::span<const double> sorted, double q, double confidence,
                              Method method = Method::kAuto);

struct SampleSummary {
  std::size_t n = 0;
  double mean = 0.0;
  double stddev = 0.0;    // sample standard deviation (n - 1); 0 when n == 1
  double min = 0.0;
  double max = 0.0;
  QuantileCi median;
  QuantileCi p90;
  QuantileCi p99;
};

// One sort, then the three quantile CIs at `confidence`.
SampleSummary summarize(std::vector<double> sample, double confidence);

}  // namespace placebench::stats
