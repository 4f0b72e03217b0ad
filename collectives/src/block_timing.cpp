// Figures from raw timings (see block_timing.h).
#include "block_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace placebench::collectives::detail {
namespace {

std::size_t per_rank(const std::vector<double>& rank_major, std::size_t nranks) {
  if (nranks == 0 || rank_major.size() % nranks != 0)
    throw std::invalid_argument("timings: " + std::to_string(rank_major.size()) + " values do not split over " +
                                std::to_string(nranks) + " ranks");
  return rank_major.size() / nranks;
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double upper = v[mid];
  if (v.size() % 2) return upper;
  double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

BlockFigures reduce_blocks(const std::vector<double>& rank_major, std::size_t nranks) {
  std::size_t blocks = per_rank(rank_major, nranks);
  BlockFigures f;
  f.blocks_s.assign(blocks, 0.0);
  for (std::size_t r = 0; r < nranks; ++r)
    for (std::size_t b = 0; b < blocks; ++b) f.blocks_s[b] += rank_major[r * blocks + b];
  for (double& b : f.blocks_s) b /= static_cast<double>(nranks);
  if (blocks == 0) return f;
  f.median_s = median_of(f.blocks_s);
  auto [lo, hi] = std::minmax_element(f.blocks_s.begin(), f.blocks_s.end());
  f.min_s = *lo;
  f.max_s = *hi;
  f.spread = f.min_s > 0 ? f.max_s / f.min_s : 0;
  return f;
}

IterationFigures reduce_iterations(const std::vector<double>& rank_major, std::size_t nranks) {
  std::size_t iters = per_rank(rank_major, nranks);
  IterationFigures f;
  f.slowest_s.assign(iters, 0.0);
  f.rank_mean_s.assign(iters, 0.0);
  for (std::size_t r = 0; r < nranks; ++r)
    for (std::size_t i = 0; i < iters; ++i) {
      double t = rank_major[r * iters + i];
      f.slowest_s[i] = std::max(f.slowest_s[i], t);
      f.rank_mean_s[i] += t;
    }
  for (double& m : f.rank_mean_s) m /= static_cast<double>(nranks);
  return f;
}

}  // namespace placebench::collectives::detail
