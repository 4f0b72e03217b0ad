// A class's interference conditions (see config_interference.h).
#include "config_interference.h"

#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"

namespace placebench::harness {

std::string hog_name(Condition::Hog hog) {
  switch (hog) {
    case Condition::Hog::kMembw: return "membw";
    case Condition::Hog::kCpu: return "cpu";
    case Condition::Hog::kNone: break;
  }
  return "quiet";
}

const Condition* ClassConfig::condition(const std::string& wanted) const {
  for (const Condition& k : conditions)
    if (k.name == wanted) return &k;
  return nullptr;
}

namespace detail {
namespace {

const std::vector<std::string> kHogs = {"membw", "cpu"};
const std::vector<std::string> kNodes = {"device", "other"};
constexpr const char* kForms =
    "accepted: quiet, or {hog: membw|cpu, node: device|other, dose: THREADS or [THREADS, ...], size: 64M (membw)}";

std::string condition_name(const Condition& k) {
  return k.quiet() ? "quiet" : fmt::format("{}-{}-{}", hog_name(k.hog), k.node, k.threads);
}

Condition::Hog hog_of(const std::string& name) { return name == "cpu" ? Condition::Hog::kCpu : Condition::Hog::kMembw; }

// The doses of one hog entry: one number or a list of numbers, each a thread count.
std::vector<int> doses(const YamlContext& c, const YAML::Node& entry, const std::string& where) {
  const YAML::Node n = entry["dose"];
  if (!n) c.fail(entry, where, "missing: the hog's threads, e.g. dose: [1, 2] (0: the hog with no thread, an A/A control)");
  std::vector<int> out;
  if (!n.IsSequence()) return {static_cast<int>(c.integer(n, where, 0, kMaxHogThreads))};
  if (n.size() == 0) c.fail(n, where, "empty: give at least one dose, e.g. [1, 2]");
  for (std::size_t i = 0; i < n.size(); ++i)
    out.push_back(static_cast<int>(c.integer(n[i], fmt::format("{}[{}]", where, i), 0, kMaxHogThreads)));
  return out;
}

// One entry of the list: quiet, or a hog at each of its doses.
std::vector<Condition> parse_entry(const YamlContext& c, const YAML::Node& e, const std::string& where) {
  if (e.IsScalar()) {
    if (e.as<std::string>() != "quiet") c.fail(e, where, fmt::format("'{}' is not a condition; {}", e.as<std::string>(), kForms));
    return {Condition{}};
  }
  if (!e.IsMap()) c.fail(e, where, std::string("must be quiet or a map; ") + kForms);
  c.check_keys(e, where, {"hog", "node", "dose", "size"});
  if (!e["hog"]) c.fail(e, where + ".hog", "missing; accepted: membw, cpu");
  Condition k;
  k.hog = hog_of(c.one_of(e["hog"], where + ".hog", kHogs));
  if (e["node"]) k.node = c.one_of(e["node"], where + ".node", kNodes);
  if (e["size"]) {
    if (k.hog != Condition::Hog::kMembw) c.fail(e["size"], where + ".size", "is the membw buffer; a cpu hog has none");
    try {
      k.bytes = parse_size(c.text(e["size"], where + ".size"), where + ".size");
    } catch (const InputError&) {
      c.fail(e["size"], where + ".size", "bad size; use 16M, 64M, 1G");
    }
  }
  std::vector<Condition> out;
  for (int threads : doses(c, e, where + ".dose")) {
    k.threads = threads;
    k.name = condition_name(k);
    out.push_back(k);
  }
  return out;
}

}  // namespace

std::vector<Condition> parse_interference_yaml(const YamlContext& c, const YAML::Node& list, const std::string& where) {
  if (!list.IsSequence())
    c.fail(list, where, "must be a list of conditions, e.g. [quiet, {hog: membw, node: device, dose: [1, 2]}]");
  if (list.size() == 0) c.fail(list, where, "empty: list the conditions (quiet and the loaded ones), or leave the key out");
  std::vector<Condition> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string w = fmt::format("{}[{}]", where, i);
    for (Condition& k : parse_entry(c, list[i], w)) {
      for (const Condition& seen : out)
        if (seen.name == k.name) c.fail(list[i], w, fmt::format("lists condition {} twice; keep one", k.name));
      out.push_back(std::move(k));
    }
  }
  return out;
}

nlohmann::json interference_to_json(const std::vector<Condition>& conditions) {
  nlohmann::json out = nlohmann::json::array();
  for (const Condition& k : conditions)
    out.push_back({{"name", k.name}, {"hog", hog_name(k.hog)}, {"node", k.node}, {"threads", k.threads}, {"bytes", k.bytes}});
  return out;
}

std::vector<Condition> interference_from_json(const Checker& c, const nlohmann::json& list, const std::string& where) {
  c.expect(list.is_array() && !list.empty(), where, "a list of conditions", list);
  std::vector<Condition> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string w = Checker::item(where, i);
    c.expect(list[i].is_object(), w, "a map", list[i]);
    Condition k;
    const std::string hog = c.one_of(list[i], w, "hog", {"quiet", "membw", "cpu"});
    k.hog = hog == "quiet" ? Condition::Hog::kNone : hog_of(hog);
    k.node = c.one_of(list[i], w, "node", kNodes);
    k.threads = static_cast<int>(c.integer(list[i], w, "threads", 0, kMaxHogThreads));
    k.bytes = static_cast<std::uint64_t>(c.integer(list[i], w, "bytes", 1, kNoLimit));
    k.name = c.text(list[i], w, "name");
    if (k.name != condition_name(k)) c.fail(Checker::join(w, "name"), fmt::format("is not {} (its hog, node and dose)", condition_name(k)));
    for (const Condition& seen : out)
      if (seen.name == k.name) c.fail(Checker::join(w, "name"), "repeats condition " + k.name);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace detail
}  // namespace placebench::harness
