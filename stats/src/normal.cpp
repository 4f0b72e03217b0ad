// Standard normal CDF and quantile.
// Quantile: Abramowitz & Stegun 26.2.23 as a start (|error| < 4.5e-4), then Halley steps on
// Phi(x) - p (as in Acklam's refinement), which converge cubically to full double precision.
#include "placebench/stats/normal.h"

#include <cmath>
#include <numbers>

#include "validate.h"

namespace placebench::stats {
namespace {

// Lower-tail quantile for p in (0, 0.5].
double lower_quantile(double p) {
  const double t = std::sqrt(-2.0 * std::log(p));
  double x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                       (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
  for (int i = 0; i < 3; ++i) {
    const double e = normal_cdf(x) - p;
    const double u = e * std::sqrt(2.0 * std::numbers::pi) * std::exp(0.5 * x * x);  // e / phi(x)
    x -= u / (1.0 + 0.5 * x * u);
  }
  return x;
}

}  // namespace

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

double normal_quantile(double p) {
  detail::require_probability_open("normal_quantile", "p", p);
  if (p > 0.5) return -lower_quantile(1.0 - p);  // 1 - p is exact for p in [0.5, 1)
  return lower_quantile(p);
}

}  // namespace placebench::stats
