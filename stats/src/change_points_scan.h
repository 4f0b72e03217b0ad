// The change-point detector's parts (private): robust scores, the permutation test of the maximal
// standardized CUSUM, the CI-aware acceptance gate and the evidence attribution (docs/statistics.md,
// "Change points").
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "placebench/stats/change_points.h"

namespace placebench::stats::detail {

// Median of the values (copies; O(n)). 0 for an empty span.
double median_of(std::span<const double> values);

// Robust per-run noise scale of a piecewise-constant series, from within its segments: the MAD of first
// differences / (0.6745 sqrt 2), which a level change barely moves (one difference in n - 1), floored at
// `floor` (the runs' own CI standard error, run_ci_floor). 0 when most consecutive runs are exactly equal
// and the runs have no CI: the scale is never taken from the spread of the whole series, which a step makes.
double difference_scale(std::span<const double> values, double floor);

// RMS of the runs' CI standard errors, (ci_upper - ci_lower) / (2 z), z the quantile of run_ci_confidence.
double run_ci_floor(std::span<const SeriesPoint> segment, double run_ci_confidence);

// Robust scale of a segment's values: 1.4826 MAD (0 for fewer than 2 values).
double mad_scale(std::span<const double> values);

// The scan of one segment: its best split (first index of the second part, relative to the segment) and
// the permutation p-value of the maximal standardized CUSUM of the clipped robust scores.
struct ScanResult {
  std::size_t split = 0;
  double statistic = 0.0;
  double p_value = 1.0;
  bool significant = false;
};
ScanResult scan_segment(std::span<const double> values, double scale, const ChangePointOptions& options,
                        unsigned long long stream);

// The split that a significant scan found, moved (by at most 5 runs, keeping min_segment each side) to
// where the two medians fit best (least absolute deviations), when the step is larger than `clipped_at`
// (clip x scale): the clipped scores of such a step no longer say exactly where it is.
std::size_t refine_split(std::span<const double> values, std::size_t split, double clipped_at,
                         std::size_t min_segment);

// A step too large for any doubt where the permutation test cannot speak (a series of 6-10 runs has too few
// orderings to reach alpha): the best split's pooled two-sample t, with the within-side standard deviation
// floored at `floor`, above kObviousScales (infinite when both sides are exactly constant and differ).
// p_value is the Gaussian tail of t, Bonferroni over the splits (0 for exactly constant sides).
inline constexpr double kObviousScales = 20.0;
ScanResult obvious_step(std::span<const double> values, double floor, std::size_t min_segment);

// The acceptance gate after a significant scan: the medians on both sides must differ by more than the
// runs' own uncertainty allows (per-run noise = difference_scale floored by the RMS CI standard error)
// and by at least min_relative_change of the level before. `floor`: run_ci_floor of the segment.
bool change_passes_gate(std::span<const double> values, double floor, std::size_t split,
                        const ChangePointOptions& options);

// Fills at_evidence_change, evidence_index and evidence_change of `change` from the series.
void attribute_change(std::span<const SeriesPoint> series, std::size_t tolerance, ChangePoint& change);

// "driver 550.54 -> 560.28" from the two runs' evidence_detail (header change_points.h).
std::string describe_evidence_change(const SeriesPoint& before, const SeriesPoint& after);

}  // namespace placebench::stats::detail
