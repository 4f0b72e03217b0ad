// Shared vocabulary of the statistics library: how an interval or p-value was computed.
// Everything in placebench::stats is pure computation on plain data: no I/O, no globals.
#pragma once
#include <cstddef>
#include <string_view>

namespace placebench::stats {

// How a rank-based interval or p-value is computed. Requests may say kAuto (the documented size
// thresholds choose); results always say which one was used.
enum class Method { kAuto, kExact, kNormalApprox };

// kAuto picks the exact null up to these sizes and the normal approximation above (hodges_lehmann.h,
// rank_tests.h): signed rank, n observations (the CI) or non-zero differences (the p-value); rank sum, both
// sample sizes. At 50 the exact DPs cost well under a millisecond and the approximation is within a few
// ranks of the exact bounds (docs/statistics.md).
inline constexpr std::size_t kSignedRankExactMaxN = 50;
inline constexpr std::size_t kRankSumExactMaxN = 50;

std::string_view to_string(Method method);

}  // namespace placebench::stats
