// max_split_t (split_t.h): one pass of prefix sums, O(n).
#include "placebench/stats/split_t.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace placebench::stats {

SplitT max_split_t(std::span<const double> values, std::size_t min_segment, double sd_floor) {
  SplitT r;
  const std::size_t n = values.size(), m = std::max<std::size_t>(min_segment, 1);
  if (n < 2 * m || n < 3) return r;
  // Sums of the values less the first: no cancellation on a level far from 0.
  double s1 = 0.0, s2 = 0.0;
  for (const double v : values) s1 += v - values[0], s2 += (v - values[0]) * (v - values[0]);
  double b1 = 0.0, b2 = 0.0;
  for (std::size_t k = 1; k + m <= n; ++k) {
    const double v = values[k - 1] - values[0];
    b1 += v, b2 += v * v;
    if (k < m) continue;
    const double kb = static_cast<double>(k), ka = static_cast<double>(n - k);
    const double mb = b1 / kb, ma = (s1 - b1) / ka;
    const double within = std::max(b2 - kb * mb * mb, 0.0) + std::max(s2 - b2 - ka * ma * ma, 0.0);
    const double sd = std::max(std::sqrt(within / static_cast<double>(n - 2)), sd_floor);
    const double diff = std::fabs(mb - ma);
    const double t = diff == 0.0 ? 0.0
                     : sd > 0.0  ? diff / (sd * std::sqrt(1.0 / kb + 1.0 / ka))
                                 : std::numeric_limits<double>::infinity();
    if (t > r.t) r.t = t, r.split = k;
  }
  return r;
}

}  // namespace placebench::stats
