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

// The one integer rule of the command line (docs/cli.md, "Values", Integers): an optional '-' and decimal
// digits, nothing else. Leading zeros are decimal ("010" is 10; CLI11 alone reads it as octal 8);
// "0x10", "0o7", "0b1", "1e3", "+5", "1_000", "1.0" and spaces are refused. nullopt when the text is not of
// that form or does not fit in a long long (then `out_of_range` is set).
std::optional<long long> parse_decimal(const std::string& text, bool& out_of_range);
// Why `text` is not a whole number from lo to hi under that rule (one phrase), or empty.
std::string whole_number_problem(const std::string& text, long long lo, long long hi);

// Every integer option's validator, added with ->transform() (so that its rewrite of "010" to "10" is what
// CLI11 converts; ->check() would discard it): the rule above, from lo to hi. Help shows `shown`
// (POSITIVE, NONNEGATIVE, or nothing). tests/cli/integer_options_cli_test.cpp finds every integer option
// of the parser and checks that it follows the rule.
CLI::Validator whole_number(long long lo, long long hi, const std::string& shown = "");
inline constexpr const char* kWholeNumberValidator = "whole-number";
// Makes every whole_number validator of every subcommand rewrite its value, however it was added (called
// once, after all subcommands are added: cli.cpp).
void enforce_integer_rule(CLI::App& app);
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
