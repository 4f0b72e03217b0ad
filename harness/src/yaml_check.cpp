// YAML validation helpers (see yaml_check.h).
#include "placebench/harness/yaml_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "placebench/harness/errors.h"
#include "placebench/hostpipe/input_file.h"

namespace placebench::harness::detail {

YAML::Node load_yaml_document(const std::string& text, const std::string& file, const char* format) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& ex) {
    throw InputError(fmt::format("{}:{}: not valid {} ({}); fix the syntax at that line", file, ex.mark.line + 1, format, ex.msg));
  }
  // A document without aliases has fewer values than bytes: only aliases can reach the larger bound.
  if (auto p = hostpipe::yaml_document_problem(root, std::max(hostpipe::kMaxYamlNodes, text.size())))
    throw InputError(fmt::format("{}:{}: {}{}", file, p->line, p->path.empty() ? "" : p->path + ": ", p->what));
  return root;
}

void throw_yaml_input_error(const YAML::Exception& e, const std::string& file, const std::string& key) {
  std::string msg = e.msg.empty() ? std::string("a value of the wrong kind") : e.msg;
  throw InputError(fmt::format("{}:{}: {}{} ({}); fix the value at that line", file, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                               key.empty() ? "" : key + ": ", "not a value placebench can read here", msg));
}

void YamlContext::fail(const YAML::Node& node, const std::string& key, const std::string& problem) const {
  int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
  throw InputError(fmt::format("{}:{}: {}: {}", file, line, key, problem));
}

void YamlContext::check_keys(const YAML::Node& map, const std::string& where,
                             std::initializer_list<const char*> allowed) const {
  check_keys(map, where, std::vector<std::string>(allowed.begin(), allowed.end()));
}

void YamlContext::check_keys(const YAML::Node& map, const std::string& where,
                             const std::vector<std::string>& allowed) const {
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
    for (const auto& a : allowed) {
      ok = ok || key == a;
      list += (list.empty() ? "" : ", ") + a;
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

namespace {

int line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

nlohmann::json scalar_to_json(const YAML::Node& n) {
  std::string s = n.as<std::string>();
  if (n.Tag() == "!") return s;  // a quoted scalar stays a string
  std::size_t used = 0;
  try {
    long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  if (s == "true" || s == "false") return s == "true";
  return s;
}

nlohmann::json to_json(const YAML::Node& n, const std::string& path, LocatedJson& out) {
  out.value_lines[path] = line_of(n);
  auto child = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
  if (n.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) {
      std::string key = kv.first.as<std::string>();
      out.key_lines[child(key)] = line_of(kv.first);
      j[key] = to_json(kv.second, child(key), out);
    }
    return j;
  }
  if (n.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (std::size_t i = 0; i < n.size(); ++i) j.push_back(to_json(n[i], path + "[" + std::to_string(i) + "]", out));
    return j;
  }
  if (n.IsNull()) return nullptr;
  return scalar_to_json(n);
}

// The line recorded for `path`, else for its nearest parent ("a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> "").
int nearest_line(const std::map<std::string, int>& lines, std::string path) {
  for (;;) {
    auto it = lines.find(path);
    if (it != lines.end()) return it->second;
    if (path.empty()) return 0;
    std::size_t cut = path.find_last_of(".[");
    path = cut == std::string::npos ? "" : path.substr(0, cut);
  }
}

}  // namespace

int LocatedJson::value_line(const std::string& path) const { return nearest_line(value_lines, path); }

int LocatedJson::key_line(const std::string& path) const {
  auto it = key_lines.find(path);
  return it != key_lines.end() ? it->second : value_line(path);
}

LocatedJson yaml_to_located_json(const YAML::Node& node) {
  LocatedJson out;
  out.value = to_json(node, "", out);
  return out;
}

}  // namespace placebench::harness::detail
