// Linux cpulist strings ("0-15,32-47"), as in sysfs and /proc/self/status, to and from sorted id lists.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace placebench::hostpipe {

// Parses "0-3,8,10-11" (whitespace and a trailing newline allowed; "" is the empty list).
// Throws std::invalid_argument naming the offending part.
std::vector<int> parse_cpulist(std::string_view text);

// Formats sorted, de-duplicated ids as ranges: {0,1,2,3,8} -> "0-3,8"; {} -> "".
std::string format_cpulist(std::vector<int> ids);

// Whether two cpulists name the same ids ("0-3" and "0,1,2,3"); text that does not parse is compared as text.
bool same_cpulist(std::string_view a, std::string_view b);

}  // namespace placebench::hostpipe
