// Parsing of sizes ("64M", "4KiB", "1G") and durations ("90s", "36m", "2h", "500ms") given by users.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace placebench::harness {

// Binary multiples: K/KiB = 1024, M = 2^20, G = 2^30, T = 2^40; a bare number is bytes.
// Throws InputError naming `where` (an option or file:line:key) and the accepted forms.
std::uint64_t parse_size(const std::string& text, const std::string& where);

// ns, us, ms, s, m (minutes), h; a bare number is seconds. Returns seconds.
double parse_duration_s(const std::string& text, const std::string& where);

// A size sweep: "4K:256M:x4" (start:end:xFACTOR, end included when reached) or a list "4K,64M,1G".
std::vector<std::uint64_t> parse_size_sweep(const std::string& text, const std::string& where);

// 67108864 -> "64 MiB".
std::string format_size(std::uint64_t bytes);

}  // namespace placebench::harness
