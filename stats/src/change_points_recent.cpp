// The recent stage of detect_change_points (docs/statistics.md, "Change points"): is there a step among the
// last few runs? Binary segmentation tests every split of the series at alpha, so a step 3-4 runs before
// the end must beat the maximum of ~n standardized CUSUMs; here only the splits that leave k =
// min_segment..recent_runs runs after them are tested, against the recent_window runs before (a window
// that follows the level of a slow drift), so the threshold is lower and a step is found a run or two
// sooner. Same scores and statistic as change_points_scan.cpp, same exact permutation null (the window's
// scores permuted), at recent_alpha: each time the series is detected this stage raises a false alarm with
// probability at most recent_alpha. A permutation only draws the last recent_runs places (a partial
// Fisher-Yates from the end), so it costs O(recent_runs), and many permutations are cheap.
#include <algorithm>
#include <cmath>
#include <vector>

#include "change_points_scan.h"

namespace placebench::stats::detail {
namespace {

// w[k] = sqrt(n / (k (n - k))) for k = 1..k_max: the standardization of the sum of the last k scores.
std::vector<double> tail_weights(std::size_t n, std::size_t k_max) {
  std::vector<double> w(k_max + 1, 0.0);
  const double nd = static_cast<double>(n);
  for (std::size_t k = 1; k <= k_max; ++k) w[k] = std::sqrt(nd / (static_cast<double>(k) * (nd - static_cast<double>(k))));
  return w;
}

// One permutation's last k_max places drawn from the buffer, their suffix sums checked as they grow.
bool tail_permutation_reaches(std::vector<double>& buf, std::span<const double> w, std::size_t m, double observed,
                              SplitMix& rng) {
  const std::size_t n = buf.size(), k_max = w.size() - 1;
  double s = 0.0;
  for (std::size_t k = 1; k <= k_max; ++k) {
    std::swap(buf[n - k], buf[rng.below(n - k + 1)]);
    s += buf[n - k];
    if (k >= m && std::fabs(s) * w[k] >= observed) return true;
  }
  return false;
}

}  // namespace

ScanResult scan_recent(std::span<const double> window, double scale, const ChangePointOptions& options,
                       unsigned long long stream) {
  ScanResult r;
  const std::size_t n = window.size(), m = options.min_segment;
  if (n < 2 * m || options.recent_runs < m) return r;
  const std::size_t k_max = std::min(options.recent_runs, n - m);  // at least min_segment runs before
  std::vector<double> y = robust_scores(window, scale, options.clip);
  const std::vector<double> w = tail_weights(n, k_max);
  double s = 0.0;
  r.statistic = -1.0;
  for (std::size_t k = 1; k <= k_max; ++k) {
    s += y[n - k];
    if (k >= m && std::fabs(s) * w[k] > r.statistic) r.statistic = std::fabs(s) * w[k], r.split = n - k;
  }
  if (!(r.statistic > 0.0)) return r;
  const double observed = r.statistic * (1.0 - 1e-12);  // ties in floating point count as reached
  SplitMix rng{options.seed ^ (stream * 0xD1B54A32D192ED03ULL)};
  const PermutationP p = sequential_permutation_test(options.recent_permutations, options.recent_alpha, [&] {
    return tail_permutation_reaches(y, w, m, observed, rng);
  });
  r.p_value = p.p_value;
  r.significant = p.significant;
  return r;
}

}  // namespace placebench::stats::detail
