// Option groups and validators shared by several subcommands, so each is spelled and documented once.
#pragma once
#include <CLI/CLI.hpp>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

#include "placebench/harness/placement/plan.h"

namespace placebench::harness {

// CLI11's PositiveNumber / NonNegativeNumber (same help text, POSITIVE / NONNEGATIVE) with messages a
// person can act on: theirs print the accepted range up to DBL_MAX, 300 digits long. NaN and inf are refused.
const CLI::Validator& positive_number();
const CLI::Validator& non_negative_number();
// positive_number with a maximum (help: POSITIVE).
CLI::Validator positive_number_at_most(double hi);

// A finite number in [lo, hi]; help shows `shown` (default: CLI::Range's "FLOAT in [lo - hi]"). CLI::Range
// lets NaN through (every comparison with it is false).
CLI::Validator number_in(double lo, double hi, const std::string& shown = "");

// A whole number written in decimal, from lo to hi (CLI11 alone reads "010" as octal 8 and "0x10" as 16,
// and saturates 64-bit values). Help shows `shown` (POSITIVE, NONNEGATIVE, or nothing).
CLI::Validator whole_number(long long lo, long long hi, const std::string& shown = "");
inline constexpr long long kMaxCount = INT_MAX;
// The largest buffer an option asks for (verify --bytes, staging --sizes, pipeline --batch-bytes): 1 TiB.
inline constexpr std::uint64_t kMaxBufferBytes = 1ull << 40;
// The largest cost per GPU-hour (decide --rate, cost --rate), as a decision block's rate_per_gpu_hour.
inline constexpr double kMaxRatePerGpuHour = 1e12;

// --gpu I | --device-numa N
void add_device_options(CLI::App* cmd, DeviceSelector& device);

// --cpus-per-worker K, --remote-node N, --allow-degenerate
void add_placement_options(CLI::App* cmd, PlanRequest& request);

// The first option of the chosen subcommand given an empty value ("--config ''"), as
// "placebench run: --config: empty value; ..."; empty when there is none. An empty value would
// otherwise silently mean the default.
std::string empty_value_error(const CLI::App& app);

}  // namespace placebench::harness
