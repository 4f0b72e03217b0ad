// Shared vocabulary of the statistics library: how an interval or p-value was computed.
// Everything in placebench::harness::stats is pure computation on plain data: no I/O, no globals.
#pragma once
#include <string_view>

namespace placebench::harness::stats {

// How a rank-based interval or p-value is computed. Requests may say kAuto (the documented size
// thresholds choose); results always say which one was used.
enum class Method { kAuto, kExact, kNormalApprox };

std::string_view to_string(Method method);

}  // namespace placebench::harness::stats
