// Group-sequential boundaries for a few planned looks (Pocock 1977, Biometrika 64:191-199; computed as in
// Armitage, McPherson & Rowe 1969 and Jennison & Turnbull, "Group Sequential Methods", 2000, ch. 2 and 19).
//
// Model: after n rounds the standardized statistic is Z_n = S_n / sqrt(n), S a Brownian motion with unit
// variance per round (the joint law of Z at the looks n_1 < ... < n_K). A rank statistic (the Wilcoxon
// signed rank of the per-round log ratios) has this joint law asymptotically. A two-sided Pocock test at
// level alpha rejects at the first look with |Z_k| >= c, c chosen so that P_H0(max_k |Z_k| >= c) = alpha:
// every look uses the same nominal two-sided level 2 (1 - Phi(c)), which is the confidence of each
// look's interval (a repeated confidence interval: all looks' intervals cover at once with 1 - alpha).
#pragma once
#include <span>
#include <vector>

namespace placebench::stats {

// K looks evenly spaced from min_rounds to max_rounds (rounded, distinct, max_rounds always last);
// fewer when there are fewer rounds than looks. Throws std::invalid_argument: min_rounds < 1,
// max_rounds < min_rounds, looks < 1.
std::vector<int> planned_look_rounds(int min_rounds, int max_rounds, int looks);

// P_H0(|Z_k| >= c at some look k) for looks at the given rounds (strictly increasing, >= 1), by recursive
// numerical integration of the density of S over the continuation region (Simpson's rule).
// Throws std::invalid_argument: empty or non-increasing looks, c <= 0 or not finite.
double crossing_probability(std::span<const int> look_rounds, double c);

// The two-sided Pocock constant c (to 1e-8): crossing_probability(look_rounds, c) = alpha.
// One look gives Phi^-1(1 - alpha / 2). Throws std::invalid_argument: alpha outside (0, 1), bad looks.
double pocock_boundary(std::span<const int> look_rounds, double alpha);

// The nominal two-sided level of each look's interval for family level alpha: 1 - 2 (1 - Phi(c)).
double pocock_look_confidence(std::span<const int> look_rounds, double alpha);

// Repeated p-value (Jennison & Turnbull 9.1): the smallest family level at which some look so far would
// have rejected, from the smallest nominal two-sided p-value seen at the looks: P_H0(max_k |Z_k| >=
// Phi^-1(1 - p / 2)) over all planned looks (conservative for the looks not reached yet). In [p, 1].
double repeated_p_value(std::span<const int> look_rounds, double nominal_p);

}  // namespace placebench::stats
