// Where exactly a step is, and steps too large to need a permutation test (change_points_scan.h;
// docs/statistics.md, "Change points"). The permutation scan clips each score at +-clip noise scales, so a
// step of hundreds of scales looks like one of `clip` scales and the noise can move its maximum by a run or
// two: refine_split puts it back where the medians fit best. And a series of 6-10 runs has too few orderings
// for any permutation p-value to reach alpha, however clear the step: obvious_step accepts a step whose
// two-sample t exceeds kObviousScales, with the runs' CIs as a floor under the within-side spread.
#include <algorithm>
#include <cmath>
#include <limits>

#include "change_points_scan.h"
#include "placebench/stats/normal.h"
#include "placebench/stats/split_t.h"

namespace placebench::stats::detail {
namespace {

double absolute_deviation(std::span<const double> values) {
  const double center = median_of(values);
  double sum = 0.0;
  for (const double v : values) sum += std::fabs(v - center);
  return sum;
}

}  // namespace

std::size_t refine_split(std::span<const double> values, std::size_t split, double clipped_at,
                         std::size_t min_segment) {
  constexpr std::size_t kReach = 5;
  const std::size_t n = values.size();
  // A step within the clip is located as well by the scores as by the medians: leave it.
  if (std::fabs(median_of(values.subspan(split)) - median_of(values.first(split))) <= clipped_at) return split;
  const std::size_t lo = std::max(min_segment, split > kReach ? split - kReach : 0);
  const std::size_t hi = std::min(n - min_segment, split + kReach);
  std::size_t best = split;
  double best_cost = std::numeric_limits<double>::infinity();
  // Nearest the scan's split first, so a tie keeps the scan's choice.
  for (std::size_t d = 0; d <= kReach; ++d) {
    for (const std::size_t k : {split - d, split + d}) {
      if (k < lo || k > hi || (d == 0 && k != split)) continue;
      const double cost = absolute_deviation(values.first(k)) + absolute_deviation(values.subspan(k));
      if (cost < best_cost) best_cost = cost, best = k;
    }
  }
  return best;
}

ScanResult obvious_step(std::span<const double> values, double floor, std::size_t min_segment) {
  ScanResult r;
  const SplitT best = max_split_t(values, min_segment, floor);
  if (best.t < 0.0) return r;
  r.split = best.split;
  r.statistic = best.t;
  const double splits = static_cast<double>(values.size() - 2 * min_segment + 1);
  r.p_value = std::isinf(best.t) ? 0.0 : std::min(1.0, 2.0 * splits * normal_cdf(-best.t));
  r.significant = best.t > kObviousScales;
  return r;
}

}  // namespace placebench::stats::detail
