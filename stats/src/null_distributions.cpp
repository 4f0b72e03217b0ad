// Exact null distributions of the signed-rank and rank-sum statistics by dynamic programming over the
// scores (the generating-function recursions of Hollander & Wolfe, 3rd ed., 3.1 and 4.1), and binomial
// tails summed term by term (Le Boudec, Thm 2.1 needs B(k) = P(Binomial(n, q) <= k)).
#include "placebench/stats/null_distributions.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace placebench::stats {
namespace {

// Relative slack when comparing a summed tail with a level: sums in another order (scipy, R) may
// differ in the last bits, and a tie at the boundary should not flip a rank.
constexpr double kTailSlack = 1e-12;

std::int64_t checked_total(std::span<const std::int64_t> scores) {
  std::int64_t total = 0;
  for (std::int64_t s : scores) {
    if (s < 0) throw std::invalid_argument("null distribution: scores must be non-negative integers");
    total += s;
  }
  return total;
}

double log_binomial_pmf(std::int64_t n, double p, std::int64_t k) {
  const double nd = static_cast<double>(n), kd = static_cast<double>(k);
  return std::lgamma(nd + 1.0) - std::lgamma(kd + 1.0) - std::lgamma(nd - kd + 1.0) + kd * std::log(p) +
         (nd - kd) * std::log1p(-p);
}

double binomial_pmf(std::int64_t n, double p, std::int64_t k) { return std::exp(log_binomial_pmf(n, p, k)); }

}  // namespace

std::vector<double> signed_rank_pmf(std::span<const std::int64_t> scores) {
  const std::int64_t total = checked_total(scores);
  std::vector<double> pmf(static_cast<std::size_t>(total) + 1, 0.0);
  pmf[0] = 1.0;
  std::int64_t reach = 0;  // largest sum reachable so far
  // Each score joins T+ with probability 1/2: P'(s) = (P(s) + P(s - w)) / 2. Halving is exact, so for
  // n <= 53 scores the probabilities are exact dyadic rationals.
  for (std::int64_t w : scores) {
    reach += w;
    for (std::int64_t s = reach; s >= 0; --s) {
      const double with = s >= w ? pmf[static_cast<std::size_t>(s - w)] : 0.0;
      pmf[static_cast<std::size_t>(s)] = 0.5 * (pmf[static_cast<std::size_t>(s)] + with);
    }
  }
  return pmf;
}

std::vector<double> rank_sum_pmf(std::span<const std::int64_t> scores, std::size_t m) {
  if (m > scores.size()) throw std::invalid_argument("rank_sum_pmf: subset larger than the pooled sample");
  const std::int64_t total = checked_total(scores);
  const std::size_t width = static_cast<std::size_t>(total) + 1;
  // ways[j * width + s]: number of j-subsets of the scores seen so far with sum s (as doubles: the counts
  // reach C(N, m); every operation is an addition of positive numbers, so the relative error stays ~1e-16).
  std::vector<double> ways((m + 1) * width, 0.0);
  ways[0] = 1.0;
  std::int64_t reach = 0;
  for (std::size_t t = 0; t < scores.size(); ++t) {
    const std::int64_t w = scores[t];
    reach += w;
    for (std::size_t j = std::min(t + 1, m); j >= 1; --j) {
      double* row = &ways[j * width];
      const double* prev = &ways[(j - 1) * width];
      for (std::int64_t s = reach; s >= w; --s) row[s] += prev[s - w];
    }
  }
  std::vector<double> pmf(ways.begin() + static_cast<std::ptrdiff_t>(m * width), ways.end());
  const double count = std::accumulate(pmf.begin(), pmf.end(), 0.0);
  for (double& p : pmf) p /= count;
  return pmf;
}

double pmf_lower_tail(std::span<const double> pmf, std::int64_t s) {
  if (s < 0) return 0.0;
  const auto end = std::min<std::size_t>(static_cast<std::size_t>(s) + 1, pmf.size());
  return std::min(1.0, std::accumulate(pmf.begin(), pmf.begin() + static_cast<std::ptrdiff_t>(end), 0.0));
}

double pmf_upper_tail(std::span<const double> pmf, std::int64_t s) {
  const auto begin = static_cast<std::size_t>(std::max<std::int64_t>(s, 0));
  if (begin >= pmf.size()) return 0.0;
  return std::min(1.0, std::accumulate(pmf.begin() + static_cast<std::ptrdiff_t>(begin), pmf.end(), 0.0));
}

std::int64_t largest_lower_critical(std::span<const double> pmf, double a) {
  std::int64_t c = -1;
  double cumulative = 0.0;
  for (std::size_t s = 0; s < pmf.size(); ++s) {
    cumulative += pmf[s];
    if (cumulative > a * (1.0 + kTailSlack)) break;
    c = static_cast<std::int64_t>(s);
  }
  return c;
}

double binomial_cdf(std::int64_t n, double p, std::int64_t k) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  double tail = 0.0;
  if (static_cast<double>(k) < static_cast<double>(n) * p) {
    for (std::int64_t i = 0; i <= k; ++i) tail += binomial_pmf(n, p, i);
    return std::min(1.0, tail);
  }
  for (std::int64_t i = k + 1; i <= n; ++i) tail += binomial_pmf(n, p, i);
  return std::max(0.0, 1.0 - tail);
}

std::int64_t binomial_ppf(std::int64_t n, double p, double a) {
  double cumulative = 0.0;
  for (std::int64_t k = 0; k < n; ++k) {
    cumulative += binomial_pmf(n, p, k);
    if (cumulative >= a * (1.0 - kTailSlack)) return k;
  }
  return n;
}

std::int64_t binomial_isf(std::int64_t n, double p, double a) {
  double survival = 0.0;  // P(B > k) for the current k, starting at k = n
  for (std::int64_t k = n; k > 0; --k) {
    survival += binomial_pmf(n, p, k);  // now P(B > k - 1)
    if (survival > a * (1.0 + kTailSlack)) return k;
  }
  return 0;
}

}  // namespace placebench::stats
