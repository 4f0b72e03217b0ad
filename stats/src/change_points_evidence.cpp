// What a change point means: whether the node's evidence changed where the level did (attribution), the
// message that says what changed, the last stable segment and the fleet changes (change_points.h).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "change_points_scan.h"
#include "placebench/stats/change_points.h"

namespace placebench::stats {
namespace detail {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

using Items = std::vector<std::pair<std::string, std::string>>;

// "driver 550.54; kernel=6.8, numa: NPS4" -> {driver, 550.54}, {kernel, 6.8}, {numa, NPS4}. False when an
// item is a single word (free text: the message then quotes both details whole).
bool parse_detail(std::string_view detail, Items& items) {
  while (!detail.empty()) {
    const auto end = detail.find_first_of(";,\n");
    const std::string_view item = trim(detail.substr(0, end));
    detail = end == std::string_view::npos ? std::string_view{} : detail.substr(end + 1);
    if (item.empty()) continue;
    const auto sep = item.find_first_of("=: \t");
    if (sep == std::string_view::npos) return false;
    items.emplace_back(std::string(trim(item.substr(0, sep))), std::string(trim(item.substr(sep + 1))));
  }
  return true;
}

const std::string* value_of(const Items& items, const std::string& name) {
  for (const auto& [n, v] : items)
    if (n == name) return &v;
  return nullptr;
}

std::string shown(const std::string* value) { return value == nullptr || value->empty() ? "(none)" : *value; }

}  // namespace

std::string describe_evidence_change(const SeriesPoint& before, const SeriesPoint& after) {
  Items a, b;
  std::vector<std::string> parts;
  if (parse_detail(before.evidence_detail, a) && parse_detail(after.evidence_detail, b)) {
    for (const auto& [name, value] : a) {
      const std::string* now = value_of(b, name);
      if (now == nullptr || *now != value) parts.push_back(name + " " + shown(&value) + " -> " + shown(now));
    }
    for (const auto& [name, value] : b)
      if (value_of(a, name) == nullptr) parts.push_back(name + " (none) -> " + shown(&value));
  }
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
  if (!text.empty()) return text;
  if (before.evidence_detail != after.evidence_detail)
    return (before.evidence_detail.empty() ? "(none)" : before.evidence_detail) + " -> " +
           (after.evidence_detail.empty() ? "(none)" : after.evidence_detail);
  // Same description, different digest: say so with the digests' heads.
  return "evidence " + before.evidence.substr(0, 12) + " -> " + after.evidence.substr(0, 12);
}

void attribute_change(std::span<const SeriesPoint> series, std::size_t tolerance, ChangePoint& change) {
  // Nearest evidence change first: distance 0, then +1 and -1, and so on up to the tolerance.
  for (std::size_t d = 0; d <= tolerance; ++d) {
    for (const int sign : {1, -1}) {
      if (d == 0 && sign < 0) continue;
      if (sign < 0 && d > change.index) continue;
      const std::size_t j = sign > 0 ? change.index + d : change.index - d;
      if (j == 0 || j >= series.size() || series[j - 1].evidence == series[j].evidence) continue;
      change.at_evidence_change = true;
      change.evidence_index = j;
      change.evidence_change = describe_evidence_change(series[j - 1], series[j]);
      return;
    }
  }
}

}  // namespace detail

StableSegment last_stable_segment(std::span<const SeriesPoint> series, std::span<const ChangePoint> changes) {
  StableSegment s;
  for (const ChangePoint& c : changes) {
    if (c.index > series.size())
      throw std::invalid_argument("last_stable_segment: change index " + std::to_string(c.index) +
                                  " is beyond the series (" + std::to_string(series.size()) + " runs)");
    s.first = std::max(s.first, c.index);
  }
  s.runs = series.size() - s.first;
  std::vector<double> values;
  values.reserve(s.runs);
  for (std::size_t i = s.first; i < series.size(); ++i) values.push_back(series[i].value);
  s.level = detail::median_of(values);
  s.spread = detail::mad_scale(values);
  return s;
}

}  // namespace placebench::stats
