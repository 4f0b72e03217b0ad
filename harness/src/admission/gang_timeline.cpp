// Reading the per-rank times of `placebench gang --json` (harness/src/collectives_driver/gang_report.cpp)
// for the admission timeline: each rank's host and, from the completed attempt (else its last one), when it
// was ready, joined the rendezvous and did its first useful step, in seconds since the job's time zero.
#include <fmt/format.h>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_file.h"

namespace placebench::harness::admission {

GangTimeline read_gang_timeline(const std::string& path) {
  const std::string fix = "give the JSON that `placebench gang --json` printed";
  nlohmann::json j = nlohmann::json::parse(read_input_file(path, fix, kMaxResultsBytes), nullptr, false);
  if (j.is_discarded()) throw InputError(fmt::format("{}: not JSON; {}", path, fix));
  if (!j.is_object() || !j.contains("schema_version") || !j.contains("ranks") || !j["ranks"].is_array())
    throw InputError(fmt::format("{}: no schema_version and ranks[]: not gang JSON; {}", path, fix));
  GangTimeline g;
  g.file = path;
  std::optional<int> completed;
  if (j.contains("completed_attempt") && j["completed_attempt"].is_number_integer()) completed = j["completed_attempt"].get<int>();
  auto opt = [](const nlohmann::json& a, const char* key) -> Time {
    if (a.contains(key) && a[key].is_number()) return a[key].get<double>();
    return std::nullopt;
  };
  for (std::size_t i = 0; i < j["ranks"].size(); ++i) {
    const auto& r = j["ranks"][i];
    if (!r.is_object() || !r.contains("rank") || !r["rank"].is_number_integer() || !r.contains("host") || !r["host"].is_string() ||
        !r.contains("attempts") || !r["attempts"].is_array())
      throw InputError(fmt::format("{}: ranks[{}]: needs rank, host and attempts[]; {}", path, i, fix));
    GangRankTimes t;
    t.rank = r["rank"].get<int>();
    t.host = r["host"].get<std::string>();
    const nlohmann::json* chosen = nullptr;
    for (const auto& a : r["attempts"])
      if (a.is_object() && (!completed || (a.contains("attempt") && a["attempt"].is_number_integer() && a["attempt"].get<int>() == *completed)))
        chosen = &a;
    if (chosen) {
      t.ready = opt(*chosen, "ready_s");
      t.joined = opt(*chosen, "joined_s");
      t.first_step = opt(*chosen, "first_step_s");
    }
    g.ranks.push_back(t);
  }
  return g;
}

}  // namespace placebench::harness::admission
