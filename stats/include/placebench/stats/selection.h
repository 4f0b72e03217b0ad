// Selection of the k-th smallest Walsh average or pairwise difference without materialising the
// O(n^2) pairs: O(n log n) expected time, O(n) memory. The pairs form an implicit matrix
// M[i][j] = u_i + v_j whose rows and columns are sorted; counting the entries <= t takes one
// two-pointer pass, O(n). A randomized search over the implicit matrix (in the spirit of Monahan,
// ACM TOMS 10(3), 1984, "Algorithm 616: fast computation of the Hodges-Lehmann location estimator")
// keeps, per row, the column range still holding candidates; each pass brackets the k-th entry between
// two quantiles of a random sample of the candidates (Floyd & Rivest 1975) and keeps what lies between,
// falling back to one random pivot when the bracket misses; O(log n) passes are expected. Floating-point
// addition is monotone, so the computed sums keep the sorted structure exactly.
#pragma once
#include <cstdint>
#include <span>

namespace placebench::stats {

// Number of Walsh averages (i <= j) of n values: n (n + 1) / 2; of pairwise differences: m * n.
std::int64_t walsh_count(std::size_t n);

// k-th smallest (1-based) of the Walsh averages (a_i + a_j) / 2, i <= j, of ascending `sorted`.
double kth_walsh_average(std::span<const double> sorted, std::int64_t k);

// k-th smallest (1-based) of the m * n differences y_j - x_i; both inputs ascending.
double kth_pairwise_difference(std::span<const double> x_sorted, std::span<const double> y_sorted,
                               std::int64_t k);

// Number of Walsh averages <= t, and of differences y_j - x_i <= t: O(n) each.
std::int64_t count_walsh_at_most(std::span<const double> sorted, double t);
std::int64_t count_differences_at_most(std::span<const double> x_sorted, std::span<const double> y_sorted,
                                       double t);

}  // namespace placebench::stats
