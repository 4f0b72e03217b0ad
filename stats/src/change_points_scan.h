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

// Robust per-run noise scale of a piecewise-constant series: the MAD of first differences / (0.6745 sqrt 2),
// which one level change barely moves; falls back to the MAD of the values, then 0.
double difference_scale(std::span<const double> values);

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
ScanResult scan_segment(std::span<const double> values, const ChangePointOptions& options,
                        unsigned long long stream);

// The acceptance gate after a significant scan: the medians on both sides must differ by more than the
// runs' own uncertainty allows (per-run noise = max(between-run scale, RMS of the CI standard errors))
// and by at least min_relative_change of the level before.
bool change_passes_gate(std::span<const SeriesPoint> segment, std::size_t split, const ChangePointOptions& options);

// Fills at_evidence_change, evidence_index and evidence_change of `change` from the series.
void attribute_change(std::span<const SeriesPoint> series, std::size_t tolerance, ChangePoint& change);

// "driver 550.54 -> 560.28" from the two runs' evidence_detail (header change_points.h).
std::string describe_evidence_change(const SeriesPoint& before, const SeriesPoint& after);

}  // namespace placebench::stats::detail
