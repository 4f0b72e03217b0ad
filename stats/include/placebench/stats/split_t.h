// The pooled two-sample t of a series split in two, maximised over the splits: the textbook CUSUM of a
// mean with unknown variance. The change-point detector uses it for steps too large to need a permutation
// test (docs/statistics.md, "Change points"); the simulation bench uses it as an alternative detector.
#pragma once
#include <cstddef>
#include <span>

namespace placebench::stats {

struct SplitT {
  std::size_t split = 0;  // first index of the second part
  double t = -1.0;        // -1 when no split leaves min_segment runs on each side
};

// The split k (min_segment <= k <= n - min_segment) with the largest |mean_after - mean_before| /
// (sd sqrt(1/k + 1/(n-k))), sd the pooled within-side standard deviation (n - 2 df) floored at sd_floor.
// t is +infinity where sd is 0 and the means differ, 0 where they are equal.
SplitT max_split_t(std::span<const double> values, std::size_t min_segment, double sd_floor = 0.0);

}  // namespace placebench::stats
