// Alternatives to the shipped change-point detector, for the comparison of docs/statistics.md.
#include "change_points_alternatives.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

#include "placebench/stats/normal.h"
#include "placebench/stats/split_t.h"

namespace placebench::bench {
namespace {

struct Split {
  std::size_t at = 0;      // relative to the segment
  bool significant = false;
};

using SegmentTest = std::function<Split(std::span<const double>)>;

std::vector<std::size_t> binary_segmentation(std::span<const double> values, std::size_t min_segment,
                                             const SegmentTest& test) {
  std::vector<std::size_t> found;
  std::vector<std::pair<std::size_t, std::size_t>> work{{0, values.size()}};
  while (!work.empty()) {
    const auto [first, last] = work.back();
    work.pop_back();
    if (last - first < 2 * min_segment) continue;
    const Split s = test(values.subspan(first, last - first));
    if (!s.significant) continue;
    found.push_back(first + s.at);
    work.emplace_back(first, first + s.at);
    work.emplace_back(first + s.at, last);
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Student t quantile by the Cornish-Fisher expansion around the normal one (Abramowitz & Stegun 26.7.5).
double t_quantile(double p, double df) {
  const double z = stats::normal_quantile(p), z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
         (3 * z5 * z * z + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df);
}

Split ttest_split(std::span<const double> x, double alpha, std::size_t m) {
  const stats::SplitT best = stats::max_split_t(x, m);
  const double splits = static_cast<double>(x.size() - 2 * m + 1);
  return {best.split, best.t > t_quantile(1.0 - alpha / (2.0 * splits), static_cast<double>(x.size() - 2))};
}

// Pettitt (1979): U_k = 2 sum_{i<=k} r_i - k (n + 1), K = max |U_k|, p ~ 2 exp(-6 K^2 / (n^3 + n^2)).
Split pettitt_split(std::span<const double> x, double alpha, std::size_t m) {
  const std::size_t n = x.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n;) {  // midranks for ties
    std::size_t j = i;
    while (j + 1 < n && x[order[j + 1]] == x[order[i]]) ++j;
    for (std::size_t t = i; t <= j; ++t) rank[order[t]] = static_cast<double>(i + j + 2) / 2.0;
    i = j + 1;
  }
  const double nd = static_cast<double>(n);
  double sum = 0.0, best = -1.0;
  Split out;
  for (std::size_t k = 1; k + m <= n; ++k) {
    sum += rank[k - 1];
    if (k < m) continue;
    const double u = std::fabs(2.0 * sum - static_cast<double>(k) * (nd + 1.0));
    if (u > best) best = u, out.at = k;
  }
  out.significant = 2.0 * std::exp(-6.0 * best * best / (nd * nd * nd + nd * nd)) <= alpha;
  return out;
}

}  // namespace

std::vector<std::size_t> ttest_binary_segmentation(std::span<const double> values, double alpha, std::size_t min_segment) {
  return binary_segmentation(values, min_segment, [&](std::span<const double> x) { return ttest_split(x, alpha, min_segment); });
}

std::vector<std::size_t> pettitt_binary_segmentation(std::span<const double> values, double alpha, std::size_t min_segment) {
  return binary_segmentation(values, min_segment, [&](std::span<const double> x) { return pettitt_split(x, alpha, min_segment); });
}

}  // namespace placebench::bench
