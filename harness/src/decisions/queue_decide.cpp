// `decide --queue-from`: a class's queue time under strict, prefer and any, read from `placebench queue --json`
// output for one gang/choice setting, as the seconds decide would otherwise be typed (--queue).
#include <fmt/format.h>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_file.h"

namespace placebench::harness::decisions {

namespace {

std::array<double, 3> queue_times_checked(const nlohmann::json& replay, const std::string& file, const std::string& class_name,
                                          bool gang, GpuChoice choice, const std::string& stat) {
  const std::string fix = "give the JSON that `placebench queue --json` printed";
  if (!replay.is_object() || replay.value("kind", "") != "queue-replay" || !replay.contains("combinations") ||
      !replay["combinations"].is_array())
    throw InputError(fmt::format("--queue-from {}: not a queue replay (kind: queue-replay, combinations[]); {}", file, fix));
  if (replay.value("schema_version", 0) != kQueueReplaySchemaVersion)
    throw InputError(fmt::format("--queue-from {}: schema_version {} is not {}; re-run placebench queue", file,
                                 replay.value("schema_version", 0), kQueueReplaySchemaVersion));
  if (stat != "mean" && stat != "p50" && stat != "p90" && stat != "p99")
    throw InputError(fmt::format("--queue-stat: '{}'; accepted: mean, p50, p90, p99", stat));
  const std::string key = "queue_" + stat + "_s";
  const std::string choice_name = choice == GpuChoice::kBinpack ? "binpack" : "spread";
  std::array<double, 3> q{};
  std::array<bool, 3> seen{};
  std::vector<std::string> names;
  for (const auto& combo : replay["combinations"]) {
    if (!combo.is_object() || combo.value("gang", !gang) != gang || combo.value("choice", "") != choice_name) continue;
    std::string locality = combo.value("locality", "");
    std::size_t i = locality == "strict" ? 0 : locality == "prefer" ? 1 : locality == "any" ? 2 : 3;
    if (i == 3 || !combo.contains("classes") || !combo["classes"].is_array()) continue;
    names.clear();
    const nlohmann::json* hit = nullptr;
    for (const auto& c : combo["classes"]) {
      names.push_back(c.value("name", ""));
      if (class_name.empty() ? combo["classes"].size() == 1 : c.value("name", "") == class_name) hit = &c;
    }
    if (!hit) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw InputError(fmt::format("--queue-from {}: {}; give --queue-class with one of: {}", file,
                                   class_name.empty() ? "several classes" : "no class '" + class_name + "'", list));
    }
    if (!hit->contains(key) || !(*hit)[key].is_number() || hit->value("started", 0) == 0)
      throw InputError(fmt::format("--queue-from {}: {} under {}: no started jobs, so no {} queue time; replay longer", file,
                                   hit->value("name", ""), combo.value("name", ""), stat));
    q[i] = (*hit)[key].get<double>();
    seen[i] = true;
  }
  for (std::size_t i = 0; i < 3; ++i)
    if (!seen[i])
      throw InputError(fmt::format("--queue-from {}: no {} combination with gang {} and {}; replay every combination", file,
                                   policy_name(kPolicies[i]), gang ? "on" : "off", choice_name));
  return q;
}

}  // namespace

std::array<double, 3> queue_times_from_replay(const nlohmann::json& replay, const std::string& file, const std::string& class_name,
                                              bool gang, GpuChoice choice, const std::string& stat) {
  try {
    return queue_times_checked(replay, file, class_name, gang, choice, stat);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("--queue-from {}: a field of the wrong type ({}); write it again with placebench queue --json", file, e.what()));
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
