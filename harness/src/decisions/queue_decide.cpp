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

// A queue time in seconds: >= 0 and within decide's cap (8760 h); none (no started job) is +infinity.
double queue_seconds(const std::optional<double>& v, const std::string& file, const std::string& where) {
  if (!v) return std::numeric_limits<double>::infinity();
  if (!(*v >= 0 && *v <= kSecondsPerYear))
    throw InputError(fmt::format("--queue-from {}: {}: {:g} s is not a queue time from 0 to 8760 h; write it again with "
                                 "`placebench queue --json`", file, where, *v));
  return *v;
}

const std::optional<double>& stat_of(const ClassOutcome& c, const std::string& stat) {
  return stat == "mean" ? c.queue_mean_s : stat == "p50" ? c.queue_p50_s : stat == "p90" ? c.queue_p90_s : c.queue_p99_s;
}

// The class's entry in one combination; an InputError listing the classes when it is not there.
const ClassOutcome& class_entry(const ReplayOutcome& combo, const std::string& class_name, const std::string& file) {
  const ClassOutcome* hit = nullptr;
  std::string names;
  for (const ClassOutcome& c : combo.classes) {
    names += (names.empty() ? "" : ", ") + c.name;
    if (class_name.empty() ? combo.classes.size() == 1 : c.name == class_name) hit = &c;
  }
  if (!hit)
    throw InputError(fmt::format("--queue-from {}: {}; give --queue-class with one of: {}", file,
                                 class_name.empty() ? "several classes" : "no class '" + class_name + "'", names));
  return *hit;
}

std::array<double, 3> queue_times_checked(const json& j, const std::string& file, const std::string& class_name,
                                          bool gang, GpuChoice choice, const std::string& stat) {
  const QueueReplay replay = queue_replay_from_json(j, "--queue-from " + file);
  if (stat != "mean" && stat != "p50" && stat != "p90" && stat != "p99")
    throw InputError(fmt::format("--queue-stat: '{}'; accepted: mean, p50, p90, p99", stat));
  const std::string key = "queue_" + stat + "_s";
  const std::string choice_name = choice == GpuChoice::kBinpack ? "binpack" : "spread";
  std::array<double, 3> q{};
  std::array<bool, 3> seen{};
  std::string name;
  for (std::size_t n = 0; n < replay.outcomes.size(); ++n) {
    const ReplayOutcome& combo = replay.outcomes[n];
    if (combo.combination.gang != gang || combo.combination.choice != choice) continue;
    const auto i = static_cast<std::size_t>(combo.combination.locality);
    const ClassOutcome& hit = class_entry(combo, class_name, file);
    name = hit.name;
    // No started job (a replay of before null was written gave 0 with started: 0): strict cannot place it.
    q[i] = hit.started == 0 ? std::numeric_limits<double>::infinity()
                            : queue_seconds(stat_of(hit, stat), file, fmt::format("combinations[{}].classes[{}].{}", n, name, key));
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
