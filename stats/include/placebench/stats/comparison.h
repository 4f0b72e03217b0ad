// Arm-versus-baseline comparisons on the log scale, reported as percent ratios.
// A ratio r = arm / baseline is estimated as exp(HL of log ratios); percent = (r - 1) * 100, so -10 means
// the arm's statistic is 10% lower than the baseline's. exp is monotone, so CIs map bound by bound.
#pragma once
#include <cstddef>
#include <span>

#include "placebench/stats/hodges_lehmann.h"
#include "placebench/stats/rank_tests.h"

namespace placebench::stats {

struct PercentCi {
  double estimate = 0.0;     // (exp(x) - 1) * 100
  double lower = 0.0;
  double upper = 0.0;
  double half_width = 0.0;   // (upper - lower) / 2; +infinity when the CI's coverage is not met
};

// Paired: per-round log ratio d_i = log(arm_i / baseline_i) of the chosen per-round statistic;
// Hodges-Lehmann + Wilcoxon signed-rank CI and p-value (hodges_lehmann.h, rank_tests.h).
struct PairedComparison {
  std::size_t rounds = 0;
  std::size_t zero_differences = 0;   // rounds with arm_i == baseline_i (dropped by the p-value only)
  ShiftCi log_ratio;                  // on log(arm / baseline)
  PercentCi ratio_pct;
  RankTest wilcoxon;
};

// Unpaired: shift of log(arm) relative to log(baseline); Hodges-Lehmann + Mann-Whitney CI and p-value.
struct UnpairedComparison {
  std::size_t n_baseline = 0;
  std::size_t n_arm = 0;
  ShiftCi log_ratio;
  PercentCi ratio_pct;
  RankTest mann_whitney;
};

// (exp(x) - 1) * 100 for the estimate and bounds of a log-scale shift.
PercentCi to_percent(const ShiftCi& log_shift);

// A ratio of the statistic (percent, + = larger) as the change in step time: a throughput ratio t (+ = more
// steps per second) is 100 / (1 + t / 100) - 100 (the same work at 1 + t the throughput takes 1 / (1 + t) as
// long; decreasing, so a CI's bounds swap); a time statistic's ratio is its own. The one formula `check`,
// `check --init-reference` and `decide` use.
double step_time_pct(double ratio_pct, bool throughput);

// Throws std::invalid_argument: empty input, different lengths (paired), values <= 0 or not finite,
// confidence outside (0, 1).
PairedComparison compare_paired(std::span<const double> baseline, std::span<const double> arm, double confidence);
UnpairedComparison compare_unpaired(std::span<const double> baseline, std::span<const double> arm,
                                    double confidence);

}  // namespace placebench::stats
