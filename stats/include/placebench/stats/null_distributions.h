// Exact null distributions of the rank statistics (signed-rank sum, rank sum) and binomial tails.
// Scores are non-negative integers: ranks 1..N, or doubled midranks when there are ties, which
// gives the exact distribution conditional on the tie pattern (Hollander & Wolfe, 3rd ed., 3.1, 4.1).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace placebench::stats {

// P(T+ = s), s = 0..sum(scores), where T+ = sum of the scores whose sign is +, every sign +/- with
// probability 1/2 independently (signed-rank null). O(n * sum) time, O(sum) memory.
std::vector<double> signed_rank_pmf(std::span<const std::int64_t> scores);

// P(R = s), s = 0..sum(scores), where R = sum of the scores of a subset of size m drawn uniformly
// from all C(N, m) subsets (rank-sum null). O(N * m * sum) time, O(m * sum) memory.
std::vector<double> rank_sum_pmf(std::span<const std::int64_t> scores, std::size_t m);

// Tails of a pmf indexed from 0: P(T <= s) and P(T >= s); s outside the support is allowed.
double pmf_lower_tail(std::span<const double> pmf, std::int64_t s);
double pmf_upper_tail(std::span<const double> pmf, std::int64_t s);

// Largest c with P(T <= c) <= a, or -1 when even P(T <= 0) > a: the critical value behind the
// conservative order-statistic confidence bounds of Hollander & Wolfe (3.21, 4.24).
std::int64_t largest_lower_critical(std::span<const double> pmf, double a);

// Binomial(n, p) quantities, summed from the tail in question (no cancellation).
double binomial_cdf(std::int64_t n, double p, std::int64_t k);    // P(B <= k)
std::int64_t binomial_ppf(std::int64_t n, double p, double a);    // smallest k with P(B <= k) >= a
std::int64_t binomial_isf(std::int64_t n, double p, double a);    // smallest k with P(B > k) <= a

}  // namespace placebench::stats
