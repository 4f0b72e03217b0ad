// k-th smallest entry of the implicit sorted matrix M[i][j] = u_i + v_j (rows i, columns j >= first(i)),
// by randomized pivoting over per-row candidate ranges (see selection.h). Walsh averages use u = v = a
// and first(i) = i; differences y_j - x_i use u = -x (descending x, so u ascends) and v = y.
#include "placebench/stats/selection.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace placebench::stats {
namespace {

constexpr std::uint64_t kPivotSeed = 0x5eedab1e0fc0ffeeULL;  // fixed: results are deterministic
constexpr std::int64_t kMaterialiseFactor = 4;                 // finish by nth_element below 4 n candidates

struct SumMatrix {
  std::span<const double> u;  // ascending
  std::span<const double> v;  // ascending
  bool triangular = false;    // columns j >= i only
  std::int64_t first(std::size_t i) const { return triangular ? static_cast<std::int64_t>(i) : 0; }
  double at(std::size_t i, std::int64_t j) const { return u[i] + v[static_cast<std::size_t>(j)]; }
};

// Per row, the first column whose entry is >= pivot (strict = false) or > pivot (strict = true), in the
// full row; non-increasing in i because u ascends, so one pointer sweeps the columns once: O(rows + cols).
void boundaries(const SumMatrix& m, double pivot, bool strict, std::vector<std::int64_t>& out) {
  auto j = static_cast<std::int64_t>(m.v.size());
  for (std::size_t i = 0; i < m.u.size(); ++i) {
    while (j > 0 && (strict ? m.at(i, j - 1) > pivot : m.at(i, j - 1) >= pivot)) --j;
    out[i] = j;
  }
}

std::int64_t count_at_most(const SumMatrix& m, double t) {
  std::vector<std::int64_t> end(m.u.size());
  boundaries(m, t, true, end);
  std::int64_t count = 0;
  for (std::size_t i = 0; i < m.u.size(); ++i) count += std::max<std::int64_t>(0, end[i] - m.first(i));
  return count;
}

double random_candidate(const SumMatrix& m, const std::vector<std::int64_t>& lo,
                        const std::vector<std::int64_t>& hi, std::int64_t candidates, std::mt19937_64& rng) {
  std::int64_t r = std::uniform_int_distribution<std::int64_t>(0, candidates - 1)(rng);
  for (std::size_t i = 0; i < lo.size(); ++i) {
    const std::int64_t width = hi[i] - lo[i];
    if (r < width) return m.at(i, lo[i] + r);
    r -= width;
  }
  throw std::logic_error("selection: candidate index out of range");
}

double select_materialised(const SumMatrix& m, const std::vector<std::int64_t>& lo,
                           const std::vector<std::int64_t>& hi, std::int64_t k) {
  std::vector<double> values;
  for (std::size_t i = 0; i < lo.size(); ++i)
    for (std::int64_t j = lo[i]; j < hi[i]; ++j) values.push_back(m.at(i, j));
  auto nth = values.begin() + (k - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

// Invariant: entries left of lo[i] are < every candidate and number `below`; entries right of hi[i] are
// > every candidate; the k-th smallest is a candidate. A random pivot splits the candidates into
// < pivot, == pivot, > pivot (clamped boundaries); keep the part holding rank k.
double select_kth(const SumMatrix& m, std::int64_t k) {
  const std::size_t rows = m.u.size();
  std::vector<std::int64_t> lo(rows), hi(rows, static_cast<std::int64_t>(m.v.size())), lt(rows), le(rows);
  for (std::size_t i = 0; i < rows; ++i) lo[i] = m.first(i);
  std::int64_t below = 0;
  std::mt19937_64 rng(kPivotSeed);
  const std::int64_t materialise_at = kMaterialiseFactor * static_cast<std::int64_t>(rows + m.v.size());
  while (true) {
    std::int64_t candidates = 0;
    for (std::size_t i = 0; i < rows; ++i) candidates += hi[i] - lo[i];
    if (candidates <= materialise_at) return select_materialised(m, lo, hi, k - below);
    const double pivot = random_candidate(m, lo, hi, candidates, rng);
    boundaries(m, pivot, false, lt);
    boundaries(m, pivot, true, le);
    std::int64_t n_less = 0, n_leq = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      lt[i] = std::clamp(lt[i], lo[i], hi[i]);
      le[i] = std::clamp(le[i], lo[i], hi[i]);
      n_less += lt[i] - lo[i];
      n_leq += le[i] - lo[i];
    }
    if (k - below <= n_less) {
      hi.swap(lt);
    } else if (k - below <= n_leq) {
      return pivot;
    } else {
      below += n_leq;
      lo.swap(le);
    }
  }
}

void require_rank(const char* where, std::int64_t k, std::int64_t count) {
  if (k < 1 || k > count)
    throw std::invalid_argument(std::string(where) + ": rank " + std::to_string(k) + " outside [1, " +
                                std::to_string(count) + "]");
}

std::vector<double> negated_reverse(std::span<const double> x_sorted) {
  std::vector<double> u(x_sorted.rbegin(), x_sorted.rend());
  for (double& v : u) v = -v;
  return u;
}

}  // namespace

std::int64_t walsh_count(std::size_t n) {
  const auto nn = static_cast<std::int64_t>(n);
  return nn * (nn + 1) / 2;
}

double kth_walsh_average(std::span<const double> sorted, std::int64_t k) {
  require_rank("kth_walsh_average", k, walsh_count(sorted.size()));
  return select_kth(SumMatrix{sorted, sorted, true}, k) / 2.0;
}

double kth_pairwise_difference(std::span<const double> x_sorted, std::span<const double> y_sorted,
                               std::int64_t k) {
  require_rank("kth_pairwise_difference", k,
               static_cast<std::int64_t>(x_sorted.size()) * static_cast<std::int64_t>(y_sorted.size()));
  const std::vector<double> u = negated_reverse(x_sorted);
  return select_kth(SumMatrix{u, y_sorted, false}, k);
}

std::int64_t count_walsh_at_most(std::span<const double> sorted, double t) {
  return count_at_most(SumMatrix{sorted, sorted, true}, 2.0 * t);
}

std::int64_t count_differences_at_most(std::span<const double> x_sorted, std::span<const double> y_sorted,
                                       double t) {
  const std::vector<double> u = negated_reverse(x_sorted);
  return count_at_most(SumMatrix{u, y_sorted, false}, t);
}

}  // namespace placebench::stats
