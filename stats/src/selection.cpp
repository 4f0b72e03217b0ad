// k-th smallest entry of the implicit sorted matrix M[i][j] = u_i + v_j (rows i, columns j >= first(i)),
// by randomized pivoting over per-row candidate ranges (see selection.h). Walsh averages use u = v = a
// and first(i) = i; differences y_j - x_i use u = -x (descending x, so u ascends) and v = y.
#include "placebench/stats/selection.h"

#include <algorithm>
#include <cmath>
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

double select_materialised(const SumMatrix& m, const std::vector<std::int64_t>& lo,
                           const std::vector<std::int64_t>& hi, std::int64_t k) {
  std::vector<double> values;
  for (std::size_t i = 0; i < lo.size(); ++i)
    for (std::int64_t j = lo[i]; j < hi[i]; ++j) values.push_back(m.at(i, j));
  auto nth = values.begin() + (k - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

// The candidates: per row the columns [lo[i], hi[i]); `cum` their running count, for drawing one
// uniformly in O(log rows).
struct Candidates {
  std::vector<std::int64_t> lo, hi, cum;
  std::int64_t count() const { return cum.back(); }
  void recount() {
    for (std::size_t i = 0; i < lo.size(); ++i) cum[i + 1] = cum[i] + (hi[i] - lo[i]);
  }
  double draw(const SumMatrix& m, std::mt19937_64& rng) const {
    const std::int64_t r = std::uniform_int_distribution<std::int64_t>(0, count() - 1)(rng);
    const auto row = static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), r) - cum.begin() - 1);
    return m.at(row, lo[row] + (r - cum[row]));
  }
};

// Per row, the boundary of `pivot` (boundaries) clamped to the candidates; the number of candidates left
// of it.
std::int64_t clamped(const SumMatrix& m, const Candidates& c, double pivot, bool strict, std::vector<std::int64_t>& out) {
  boundaries(m, pivot, strict, out);
  std::int64_t n = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = std::clamp(out[i], c.lo[i], c.hi[i]);
    n += out[i] - c.lo[i];
  }
  return n;
}

// Two pivots from a sorted random sample of the candidates, bracketing the target rank's quantile by a
// few standard errors (Floyd & Rivest 1975, CACM 18(3), "Algorithm 489: SELECT"): the k-th smallest falls
// between them with high probability, and then only the candidates between them stay, a fraction of
// about 1/sqrt(sample) of them per pass. Returns false when the bracket missed (the caller falls back to
// one random pivot, which always makes progress).
constexpr std::int64_t kSample = 1024;

struct Bracket {
  double low = 0, high = 0;
  bool has_low = false, has_high = false;
};

Bracket sample_bracket(const SumMatrix& m, const Candidates& c, std::int64_t target, std::mt19937_64& rng) {
  std::vector<double> sample(static_cast<std::size_t>(kSample));
  for (double& x : sample) x = c.draw(m, rng);
  std::sort(sample.begin(), sample.end());
  const double at = static_cast<double>(target) / static_cast<double>(c.count()) * kSample;
  const double spread = 3.0 * std::sqrt(static_cast<double>(kSample));  // a few sd of a sample rank
  const auto lo_index = static_cast<std::int64_t>(std::floor(at - spread));
  const auto hi_index = static_cast<std::int64_t>(std::ceil(at + spread));
  Bracket b;
  b.has_low = lo_index >= 0;
  b.has_high = hi_index < kSample;
  if (b.has_low) b.low = sample[static_cast<std::size_t>(lo_index)];
  if (b.has_high) b.high = sample[static_cast<std::size_t>(hi_index)];
  return b;
}

// Invariant: entries left of lo[i] are < every candidate and number `below`; entries right of hi[i] are
// > every candidate; the k-th smallest is a candidate. Each pass first tries a sampled bracket [low,
// high] that keeps only the candidates between; when that does not shrink them, a random pivot splits
// them into < pivot, == pivot, > pivot and the part holding rank k stays. Each pass is O(rows + cols);
// the bracket needs far fewer passes than a random pivot alone (a million paired values: the Walsh
// selections of `placebench stats` took 2.7 s of user time with random pivots, 0.7 s with brackets).
double select_kth(const SumMatrix& m, std::int64_t k) {
  const std::size_t rows = m.u.size();
  Candidates c{std::vector<std::int64_t>(rows), std::vector<std::int64_t>(rows, static_cast<std::int64_t>(m.v.size())),
               std::vector<std::int64_t>(rows + 1, 0)};
  for (std::size_t i = 0; i < rows; ++i) c.lo[i] = m.first(i);
  c.recount();
  std::vector<std::int64_t> lt(rows), le(rows);
  std::int64_t below = 0;
  std::mt19937_64 rng(kPivotSeed);
  const std::int64_t materialise_at = kMaterialiseFactor * static_cast<std::int64_t>(rows + m.v.size());
  while (true) {
    const std::int64_t candidates = c.count(), target = k - below;
    if (candidates <= materialise_at) return select_materialised(m, c.lo, c.hi, target);
    const Bracket b = sample_bracket(m, c, target, rng);
    const std::int64_t n_less = b.has_low ? clamped(m, c, b.low, false, lt) : 0;     // < low
    const std::int64_t n_leq = b.has_high ? clamped(m, c, b.high, true, le) : candidates;  // <= high
    if (n_less < target && target <= n_leq && n_leq - n_less < candidates) {
      if (b.has_low) c.lo.swap(lt);
      if (b.has_high) c.hi.swap(le);
      below += n_less;
      c.recount();
      continue;
    }
    const double pivot = c.draw(m, rng);
    const std::int64_t p_less = clamped(m, c, pivot, false, lt), p_leq = clamped(m, c, pivot, true, le);
    if (target <= p_less) {
      c.hi.swap(lt);
    } else if (target <= p_leq) {
      return pivot;
    } else {
      below += p_leq;
      c.lo.swap(le);
    }
    c.recount();
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
