// YAML validation helpers (see yaml_check.h).
#include "placebench/harness/yaml_check.h"

#include <fmt/format.h>

#include <set>

#include "placebench/harness/errors.h"

namespace placebench::harness::detail {

void YamlContext::fail(const YAML::Node& node, const std::string& key, const std::string& problem) const {
  int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
  throw InputError(fmt::format("{}:{}: {}: {}", file, line, key, problem));
}

void YamlContext::check_keys(const YAML::Node& map, const std::string& where,
                             std::initializer_list<const char*> allowed) const {
  if (!map.IsMap()) fail(map, where, "must be a mapping (key: value lines)");
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail(kv.first, where, "a key must be a plain name, not a list or mapping");
    std::string key = kv.first.as<std::string>();
    // YAML forbids duplicate keys; yaml-cpp keeps both and reads the first, so a later override would be
    // silently ignored.
    if (!seen.insert(key).second)
      fail(kv.first, where.empty() ? key : where + "." + key, "appears twice in this mapping; keep one");
    bool ok = false;
    std::string list;
    for (const char* a : allowed) {
      ok = ok || key == a;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    if (!ok) fail(kv.first, where.empty() ? key : where + "." + key, "unknown key; accepted keys: " + list);
  }
}

std::string YamlContext::text(const YAML::Node& node, const std::string& key) const {
  if (!node.IsScalar()) fail(node, key, "must be a single value");
  return node.as<std::string>();
}

long long YamlContext::integer(const YAML::Node& node, const std::string& key, long long min, long long max) const {
  std::string s = text(node, key);
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used == s.size() && v >= min && v <= max) return v;
  } catch (const std::exception&) {
  }
  fail(node, key, fmt::format("'{}' is not a whole number in [{}, {}]", s, min, max));
}

double YamlContext::number(const YAML::Node& node, const std::string& key, double min, double max) const {
  std::string s = text(node, key);
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && v >= min && v <= max) return v;
  } catch (const std::exception&) {
  }
  fail(node, key, fmt::format("'{}' is not a number in [{}, {}]", s, min, max));
}

bool YamlContext::boolean(const YAML::Node& node, const std::string& key) const {
  std::string s = text(node, key);
  if (s == "true" || s == "yes") return true;
  if (s == "false" || s == "no") return false;
  fail(node, key, fmt::format("'{}' is not true or false", s));
}

std::string YamlContext::one_of(const YAML::Node& node, const std::string& key,
                                const std::vector<std::string>& accepted) const {
  std::string s = text(node, key);
  std::string list;
  for (const auto& a : accepted) {
    if (a == s) return s;
    list += (list.empty() ? "" : ", ") + a;
  }
  fail(node, key, fmt::format("'{}' is not accepted; accepted values: {}", s, list));
}

}  // namespace placebench::harness::detail
