// Linux cpulist strings ("0-15,32-47"), as in sysfs and /proc/self/status, to and from sorted id lists.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace placebench::hostpipe {

// The largest id a cpulist may name: twice the largest NR_CPUS Linux builds (8192). A larger id is
// damage, and refusing it bounds what one string can cost ("0-2147483647" is two billion ids).
constexpr int kMaxCpulistId = 16383;

// Parses "0-3,8,10-11" (whitespace and a trailing newline allowed; "" is the empty list) into sorted,
// de-duplicated ids. Throws std::invalid_argument naming the offending part, also for an id above
// kMaxCpulistId. Time and memory are bounded by the text and kMaxCpulistId, however often ranges repeat.
std::vector<int> parse_cpulist(std::string_view text);

// Formats sorted, de-duplicated ids as ranges: {0,1,2,3,8} -> "0-3,8"; {} -> "".
std::string format_cpulist(std::vector<int> ids);

// Whether two cpulists name the same ids ("0-3" and "0,1,2,3"); text that does not parse is compared as text.
bool same_cpulist(std::string_view a, std::string_view b);

}  // namespace placebench::hostpipe
