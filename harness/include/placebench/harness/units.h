// Parsing of sizes ("64M", "4KiB", "64MB") and durations ("90s", "36m", "2h", "500ms") given by users.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace placebench::harness {

// The largest size any option or config key accepts unless its caller names a smaller one: 1 PiB.
inline constexpr std::uint64_t kMaxSizeBytes = 1ull << 50;
// 8760h: the longest duration decide and cost accept.
inline constexpr double kSecondsPerYear = 8760.0 * 3600.0;

// K/M/G/T and KiB/MiB/GiB/TiB are binary (1024^n), KB/MB/GB/TB decimal (1000^n); B or a bare number is
// bytes: "64M" = "64MiB" = 64 MiB, "64MB" = 64,000,000 bytes. Whole bytes from 1 to max_bytes.
// Throws InputError naming `where` (an option or file:line:key), the value and the accepted forms or maximum.
std::uint64_t parse_size(const std::string& text, const std::string& where, std::uint64_t max_bytes = kMaxSizeBytes);

// ns, us, ms, s, m/min (minutes), h; a bare number is seconds. Returns seconds, from 0 to max_s (so never
// infinite): every option states its maximum. Throws InputError naming `where`, the value and the maximum.
double parse_duration_s(const std::string& text, const std::string& where, double max_s);

// The same without a maximum (a number too long for a double gives infinity), only for callers that check
// the range of the result themselves: the run config's keys (config_limits) and the pipeline's durations
// (pipeline.cpp), whose messages name their own maxima.
double parse_duration_s(const std::string& text, const std::string& where);

// A size sweep: "4K:256M:x4" (start:end:xFACTOR, end included when reached) or a list "4K,64M,1G"; each
// size as parse_size with max_bytes.
std::vector<std::uint64_t> parse_size_sweep(const std::string& text, const std::string& where,
                                            std::uint64_t max_bytes = kMaxSizeBytes);

// 67108864 -> "64 MiB".
std::string format_size(std::uint64_t bytes);

// A maximum as the options write it: 3600 -> "1h", 600 -> "10m", 1.5 -> "1.5s".
std::string format_duration(double seconds);

}  // namespace placebench::harness
