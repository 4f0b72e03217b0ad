// The standard normal distribution: CDF and quantile, used by every large-sample approximation.
#pragma once

namespace placebench::stats {

// Phi(x) = P(Z <= x), via erfc so that the lower tail keeps its relative precision.
double normal_cdf(double x);

// Phi^-1(p) for p in (0, 1), accurate to about 1e-15 (throws std::invalid_argument otherwise).
double normal_quantile(double p);

}  // namespace placebench::stats
