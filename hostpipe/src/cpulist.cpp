// cpulist parsing and formatting (see cpulist.h).
#include "placebench/hostpipe/cpulist.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace placebench::hostpipe {
namespace {

int parse_id(std::string_view part, std::string_view whole) {
  int value = -1;
  auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
  if (ec != std::errc() || ptr != part.data() + part.size() || value < 0)
    throw std::invalid_argument("bad cpulist '" + std::string(whole) + "': '" + std::string(part) +
                                "' is not a non-negative integer");
  if (value > kMaxCpulistId)
    throw std::invalid_argument("bad cpulist '" + std::string(whole) + "': '" + std::string(part) + "' is above " +
                                std::to_string(kMaxCpulistId) + ", the largest CPU or node id placebench accepts");
  return value;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<int> parse_cpulist(std::string_view text) {
  std::string_view whole = trim(text);
  std::vector<std::pair<int, int>> ranges;
  std::string_view rest = whole;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view part = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (part.empty()) throw std::invalid_argument("bad cpulist '" + std::string(whole) + "': empty element");
    auto dash = part.find('-');
    int lo = parse_id(part.substr(0, dash), whole);
    int hi = dash == std::string_view::npos ? lo : parse_id(part.substr(dash + 1), whole);
    if (hi < lo)
      throw std::invalid_argument("bad cpulist '" + std::string(whole) + "': range '" + std::string(part) +
                                  "' runs backwards");
    ranges.emplace_back(lo, hi);
  }
  // Ranges sorted and expanded once past the highest id so far: repeated or overlapping ranges cost no
  // more than their text, and the result holds each id once, in order.
  std::sort(ranges.begin(), ranges.end());
  std::vector<int> ids;
  int next = 0;  // the lowest id not yet in ids
  for (auto [lo, hi] : ranges)
    for (int i = std::max(lo, next); i <= hi; ++i) {
      ids.push_back(i);
      next = i + 1;
    }
  return ids;
}

std::string format_cpulist(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

bool same_cpulist(std::string_view a, std::string_view b) {
  try {
    return parse_cpulist(a) == parse_cpulist(b);
  } catch (const std::invalid_argument&) {
    return a == b;
  }
}

}  // namespace placebench::hostpipe
