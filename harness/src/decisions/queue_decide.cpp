// `decide --queue-from`: a class's queue time under strict, prefer and any, read from `placebench queue --json`
// output for one gang/choice setting, as the seconds decide would otherwise be typed (--queue).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/units.h"

namespace placebench::harness::decisions {

namespace {

using nlohmann::json;

// A replay's field of the kind queue_report.cpp writes, or an InputError naming it (never nlohmann's
// type_error text).
struct ReplayReader {
  const std::string& file;
  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw InputError(fmt::format("--queue-from {}: {}: {}; write it again with `placebench queue --json`", file, where, problem));
  }
  std::string text(const json& o, const char* key, const std::string& where) const {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) fail(where + "." + key, "expected a string");
    return it->get<std::string>();
  }
  bool boolean(const json& o, const char* key, const std::string& where) const {
    auto it = o.find(key);
    if (it == o.end() || !it->is_boolean()) fail(where + "." + key, "expected true or false");
    return it->get<bool>();
  }
  // A queue time in seconds: >= 0 and within decide's cap (8760 h); null (no started job) is +infinity.
  double seconds(const json& o, const std::string& key, const std::string& where) const {
    auto it = o.find(key);
    if (it != o.end() && it->is_null()) return std::numeric_limits<double>::infinity();
    if (it == o.end() || !it->is_number()) fail(where + "." + key, "expected a number of seconds, or null");
    const double v = it->get<double>();
    if (!(v >= 0 && v <= kSecondsPerYear))
      fail(where + "." + key, fmt::format("{:g} s is not a queue time from 0 to 8760 h", v));
    return v;
  }
};

void check_replay_header(const json& replay, const ReplayReader& r) {
  if (!replay.is_object() || !replay.contains("kind") || replay["kind"] != "queue-replay" || !replay.contains("combinations") ||
      !replay["combinations"].is_array())
    r.fail("kind", "not a queue replay (kind: queue-replay, combinations[])");
  const json& v = replay.contains("schema_version") ? replay["schema_version"] : json();
  if (!v.is_number_integer() || v.get<std::int64_t>() != kQueueReplaySchemaVersion)
    throw InputError(fmt::format("--queue-from {}: schema_version {} is not {}; re-run placebench queue", r.file, v.dump(),
                                 kQueueReplaySchemaVersion));
}

// The class's entry in one combination; an InputError listing the classes when it is not there.
const json& class_entry(const json& combo, const std::string& class_name, const std::string& where, const ReplayReader& r) {
  if (!combo.contains("classes") || !combo["classes"].is_array()) r.fail(where + ".classes", "expected a list");
  const json* hit = nullptr;
  std::string names;
  for (std::size_t i = 0; i < combo["classes"].size(); ++i) {
    const json& c = combo["classes"][i];
    if (!c.is_object()) r.fail(fmt::format("{}.classes[{}]", where, i), "expected a map");
    std::string name = r.text(c, "name", fmt::format("{}.classes[{}]", where, i));
    names += (names.empty() ? "" : ", ") + name;
    if (class_name.empty() ? combo["classes"].size() == 1 : name == class_name) hit = &c;
  }
  if (!hit)
    throw InputError(fmt::format("--queue-from {}: {}; give --queue-class with one of: {}", r.file,
                                 class_name.empty() ? "several classes" : "no class '" + class_name + "'", names));
  return *hit;
}

std::array<double, 3> queue_times_checked(const json& replay, const std::string& file, const std::string& class_name,
                                          bool gang, GpuChoice choice, const std::string& stat) {
  const ReplayReader r{file};
  check_replay_header(replay, r);
  if (stat != "mean" && stat != "p50" && stat != "p90" && stat != "p99")
    throw InputError(fmt::format("--queue-stat: '{}'; accepted: mean, p50, p90, p99", stat));
  const std::string key = "queue_" + stat + "_s";
  const std::string choice_name = choice == GpuChoice::kBinpack ? "binpack" : "spread";
  std::array<double, 3> q{};
  std::array<bool, 3> seen{};
  std::string name;
  for (std::size_t n = 0; n < replay["combinations"].size(); ++n) {
    const json& combo = replay["combinations"][n];
    const std::string where = fmt::format("combinations[{}]", n);
    if (!combo.is_object()) r.fail(where, "expected a map");
    if (r.boolean(combo, "gang", where) != gang || r.text(combo, "choice", where) != choice_name) continue;
    std::string locality = r.text(combo, "locality", where);
    std::size_t i = locality == "strict" ? 0 : locality == "prefer" ? 1 : locality == "any" ? 2 : 3;
    if (i == 3) continue;
    const json& hit = class_entry(combo, class_name, where, r);
    name = hit.value("name", "");
    // No started job (a replay of before null was written gave 0 with started: 0): strict cannot place it.
    const bool none_started = hit.contains("started") && hit["started"].is_number() && hit["started"] == 0;
    q[i] = none_started ? std::numeric_limits<double>::infinity() : r.seconds(hit, key, where + ".classes[" + name + "]");
    seen[i] = true;
  }
  for (std::size_t i = 0; i < 3; ++i)
    if (!seen[i])
      throw InputError(fmt::format("--queue-from {}: no {} combination with gang {} and {}; replay every combination", file,
                                   policy_name(kPolicies[i]), gang ? "on" : "off", choice_name));
  if (std::all_of(q.begin(), q.end(), [](double v) { return std::isinf(v); }))
    throw InputError(fmt::format("--queue-from {}: {} never started under any policy (gang {}, {}): no policy can place it "
                                 "on this cluster, so there is nothing to decide; replay longer or on a larger inventory",
                                 file, name, gang ? "on" : "off", choice_name));
  return q;
}

}  // namespace

std::array<double, 3> queue_times_from_replay(const nlohmann::json& replay, const std::string& file, const std::string& class_name,
                                              bool gang, GpuChoice choice, const std::string& stat) {
  try {
    return queue_times_checked(replay, file, class_name, gang, choice, stat);
  } catch (const nlohmann::json::exception&) {  // a field the checks above did not reach: named, not nlohmann's text
    throw InputError(fmt::format("--queue-from {}: a field of the wrong type; write it again with `placebench queue --json`", file));
  }
}

std::array<double, 3> load_queue_times(const std::string& file, const std::string& class_name, bool gang, GpuChoice choice,
                                       const std::string& stat) {
  const std::string fix = "give --queue-from the JSON that `placebench queue --json` printed";
  nlohmann::json j = nlohmann::json::parse(read_input_file(file, fix, kMaxResultsBytes), nullptr, false);
  if (j.is_discarded()) throw InputError(fmt::format("--queue-from {}: not JSON; {}", file, fix));
  return queue_times_from_replay(j, file, class_name, gang, choice, stat);
}

}  // namespace placebench::harness::decisions
