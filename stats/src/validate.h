// Argument checks shared by the statistics sources (private). Each throws std::invalid_argument with a
// message that names the function, the argument and what is accepted.
#pragma once
#include <span>
#include <string_view>

#include "placebench/stats/common.h"

namespace placebench::stats::detail {

void require_non_empty(std::string_view where, std::string_view what, std::size_t size);
void require_confidence(std::string_view where, double confidence);
void require_probability_open(std::string_view where, std::string_view what, double p);  // in (0, 1)
void require_no_nan(std::string_view where, std::string_view what, std::span<const double> values);
void require_finite(std::string_view where, std::string_view what, std::span<const double> values);
void require_positive(std::string_view where, std::string_view what, std::span<const double> values);

// Forced exact nulls beyond these sizes would take too long: the signed-rank DP is O(n^3), the rank-sum
// DP O((m N)^2) for the smaller sample size m and the pooled size N.
inline constexpr std::size_t kSignedRankExactLimit = 400;   // n
inline constexpr std::size_t kRankSumExactLimit = 20000;    // m * N

// kAuto -> exact when `small`, else the normal approximation; a forced kExact with size > limit throws.
Method resolve_method(Method requested, bool small, std::size_t size, std::size_t limit, std::string_view where);

}  // namespace placebench::stats::detail
