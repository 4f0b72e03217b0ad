// What a fleet's runs must share to be compared (fleet.h, docs/fleet.md#one-config): the part of the config
// copy that decides what is measured, the first difference in words, and the refusal that names it unless
// --metrics says which rows to compare.
#include "placebench/harness/text_clip.h"
#include <fmt/format.h>

#include <algorithm>

#include "placebench/harness/errors.h"
#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {

using nlohmann::json;

json measured_part(const json& config) {
  json out = json::object();
  if (!config.is_object()) return out;
  for (const char* key : {"name", "steps", "warmup_steps", "contention", "classes"})
    if (config.contains(key)) out[key] = config.at(key);
  return out;
}

namespace {

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? utf8_prefix(s, 57) + "..." : s;
}

}  // namespace

std::string first_difference(const json& a, const json& b, const std::string& where) {
  const std::string at = where.empty() ? "config" : where;
  if (a.type() != b.type()) return fmt::format("{}: {} against {}", at, shown(a), shown(b));
  if (a.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string sub = where.empty() ? key : where + "." + key;
      if (!b.contains(key)) return fmt::format("{}: {} against none", sub, shown(value));
      std::string d = first_difference(value, b.at(key), sub);
      if (!d.empty()) return d;
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) return fmt::format("{}: none against {}", where.empty() ? key : where + "." + key, shown(value));
    return "";
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return fmt::format("{}: {} entries against {}", at, a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string d = first_difference(a[i], b[i], fmt::format("{}[{}]", at, i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : fmt::format("{}: {} against {}", at, shown(a), shown(b));
}

bool metric_selected(const std::vector<std::string>& metrics, const std::string& cls, const std::string& arm) {
  if (metrics.empty()) return true;
  return std::any_of(metrics.begin(), metrics.end(), [&](const std::string& m) { return m == cls || m == cls + "/" + arm; });
}

void require_comparable(const std::vector<NodeRun>& nodes, const FleetOptions& options) {
  if (!options.metrics.empty()) {
    for (const std::string& m : options.metrics) {
      bool found = std::any_of(nodes.begin(), nodes.end(), [&](const NodeRun& n) {
        return std::any_of(n.classes.begin(), n.classes.end(), [&](const ClassAnalysis& c) {
          return std::any_of(c.arms.begin(), c.arms.end(), [&](const ArmAnalysis& a) { return metric_selected({m}, c.name, a.arm); });
        });
      });
      if (!found)
        throw InputError(fmt::format("--metrics {}: no node has this class (or arm); give CLASS or CLASS/ARM as the runs' "
                                     "summaries name them (placebench compare DIR lists them)", m));
    }
    return;
  }
  const NodeRun* first = nullptr;
  for (const NodeRun& n : nodes) {
    if (n.measured.is_null()) continue;
    if (!first) {
      first = &n;
      continue;
    }
    std::string d = first_difference(first->measured, n.measured);
    if (!d.empty())
      throw InputError(fmt::format("{} ({}) and {} ({}) measured different things: {}; give runs of one experiment and "
                                   "config, or name the metrics to compare with --metrics CLASS[/ARM],... (docs/fleet.md)",
                                   first->dir, first->host, n.dir, n.host, d));
  }
}

}  // namespace placebench::harness::fleet
