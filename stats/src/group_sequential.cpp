// Pocock boundaries by recursive integration (see group_sequential.h). The density of S at look k is
// kept on a Simpson grid over the continuation region (-c sqrt(n_k), c sqrt(n_k)); moving to the next
// look convolves it with the N(0, n_{k+1} - n_k) increment. Errors of the grid are far below 1e-6 in
// the crossing probability at 101 points per look (checked against published constants in the tests).
#include "placebench/stats/group_sequential.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>
#include <stdexcept>
#include <string>

#include "placebench/stats/normal.h"
#include "validate.h"

namespace placebench::stats {
namespace {

constexpr std::size_t kGridPoints = 101;  // odd, for Simpson's rule

void require_looks(std::span<const int> looks) {
  if (looks.empty()) throw std::invalid_argument("group sequential: the plan needs at least one look");
  for (std::size_t i = 0; i < looks.size(); ++i)
    if (looks[i] < 1 || (i > 0 && looks[i] <= looks[i - 1]))
      throw std::invalid_argument("group sequential: look rounds must be >= 1 and strictly increasing; look " +
                                  std::to_string(i + 1) + " is at round " + std::to_string(looks[i]));
}

double normal_pdf(double x, double var) { return std::exp(-x * x / (2 * var)) / std::sqrt(2 * M_PI * var); }

struct Grid {
  std::vector<double> x, w;  // points and Simpson weights
};

Grid simpson_grid(double half_width) {
  Grid g;
  g.x.resize(kGridPoints);
  g.w.resize(kGridPoints);
  const double h = 2 * half_width / static_cast<double>(kGridPoints - 1);
  for (std::size_t i = 0; i < kGridPoints; ++i) {
    g.x[i] = -half_width + static_cast<double>(i) * h;
    g.w[i] = h / 3 * (i == 0 || i == kGridPoints - 1 ? 1 : (i % 2 ? 4 : 2));
  }
  return g;
}

}  // namespace

std::vector<int> planned_look_rounds(int min_rounds, int max_rounds, int looks) {
  if (min_rounds < 1 || max_rounds < min_rounds || looks < 1)
    throw std::invalid_argument("planned_look_rounds: need 1 <= min_rounds <= max_rounds and looks >= 1; got min " +
                                std::to_string(min_rounds) + ", max " + std::to_string(max_rounds) + ", looks " +
                                std::to_string(looks));
  std::vector<int> out;
  for (int k = 0; k < looks; ++k) {
    double t = looks == 1 ? 1.0 : static_cast<double>(k) / (looks - 1);
    int r = static_cast<int>(std::lround(min_rounds + t * (max_rounds - min_rounds)));
    if (out.empty() || r > out.back()) out.push_back(r);
  }
  if (out.back() != max_rounds) out.push_back(max_rounds);
  return out;
}

double crossing_probability(std::span<const int> looks, double c) {
  require_looks(looks);
  if (!(c > 0) || !std::isfinite(c))
    throw std::invalid_argument("crossing_probability: c must be finite and > 0; got " + std::to_string(c));
  // Look 1: S ~ N(0, n_1).
  Grid g = simpson_grid(c * std::sqrt(static_cast<double>(looks[0])));
  std::vector<double> f(kGridPoints);
  for (std::size_t i = 0; i < kGridPoints; ++i) f[i] = normal_pdf(g.x[i], looks[0]);
  for (std::size_t k = 1; k < looks.size(); ++k) {
    const double var = looks[k] - looks[k - 1];
    Grid next = simpson_grid(c * std::sqrt(static_cast<double>(looks[k])));
    std::vector<double> nf(kGridPoints, 0.0);
    for (std::size_t j = 0; j < kGridPoints; ++j)
      for (std::size_t i = 0; i < kGridPoints; ++i) nf[j] += g.w[i] * f[i] * normal_pdf(next.x[j] - g.x[i], var);
    g = std::move(next);
    f = std::move(nf);
  }
  double stay = 0;
  for (std::size_t i = 0; i < kGridPoints; ++i) stay += g.w[i] * f[i];
  return std::clamp(1.0 - stay, 0.0, 1.0);
}

double pocock_boundary(std::span<const int> looks, double alpha) {
  require_looks(looks);
  detail::require_probability_open("pocock_boundary", "alpha", alpha);
  // The analysis asks for the same plan after every round: a pure function's results, cached.
  static std::mutex mutex;
  static std::map<std::pair<std::vector<int>, double>, double> cache;
  std::pair<std::vector<int>, double> key{std::vector<int>(looks.begin(), looks.end()), alpha};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  double lo = normal_quantile(1 - alpha / 2);  // one look: the crossing probability is alpha at lo
  if (looks.size() == 1) return lo;
  double hi = normal_quantile(1 - alpha / (2 * static_cast<double>(looks.size())));  // Bonferroni: <= alpha
  for (int it = 0; it < 100 && hi - lo > 1e-8; ++it) {
    double mid = (lo + hi) / 2;
    (crossing_probability(looks, mid) > alpha ? lo : hi) = mid;
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() > 256) cache.clear();
  cache.emplace(std::move(key), hi);
  return hi;
}

double pocock_look_confidence(std::span<const int> looks, double alpha) {
  return 1 - 2 * (1 - normal_cdf(pocock_boundary(looks, alpha)));
}

double repeated_p_value(std::span<const int> looks, double nominal_p) {
  require_looks(looks);
  if (!(nominal_p >= 0 && nominal_p <= 1))
    throw std::invalid_argument("repeated_p_value: nominal p must be in [0, 1]; got " + std::to_string(nominal_p));
  if (nominal_p >= 1) return 1;
  if (nominal_p <= 0) return 0;
  const double z = -normal_quantile(nominal_p / 2);  // not Phi^-1(1 - p/2): 1 - p/2 rounds to 1 for tiny p
  return std::clamp(std::max(nominal_p, crossing_probability(looks, z)), 0.0, 1.0);
}

}  // namespace placebench::stats
