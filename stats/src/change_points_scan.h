// The change-point detector's parts (private): robust scores, the permutation test of the maximal
// standardized CUSUM, the CI-aware acceptance gate and the evidence attribution (docs/statistics.md,
// "Change points").
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "placebench/stats/change_points.h"

namespace placebench::stats::detail {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and the same on every platform, so a seed gives the
// same permutations everywhere (std::shuffle's use of the engine is implementation-defined).
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t bound) { return static_cast<std::size_t>(next() % bound); }
};

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

// psi_i = clip((x_i - median) / scale, +-clip), raw deviations when scale is 0, centred to mean 0.
std::vector<double> robust_scores(std::span<const double> values, double scale, double clip);

// Besag and Clifford's sequential Monte Carlo test: up to `permutations` draws of permutation_reaches()
// (true: that permutation's statistic is at least the observed one), stopped once p = (1 + c) / (B + 1)
// can no longer reach alpha; significant iff it did.
struct PermutationP {
  double p_value = 1.0;
  bool significant = false;
};
PermutationP sequential_permutation_test(std::size_t permutations, double alpha,
                                         const std::function<bool()>& permutation_reaches);

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

// The recent stage (change_points_recent.cpp): the same statistic over the splits that leave k =
// min_segment..recent_runs runs after them (and min_segment before), permutation p-value at recent_alpha
// with recent_permutations. `window`: the runs from the last change (or recent_window + recent_runs back).
ScanResult scan_recent(std::span<const double> window, double scale, const ChangePointOptions& options,
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
