// JSON and console summary of `placebench gang` (see gang_report.h).
#include "placebench/harness/collectives_driver/gang_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "placebench/harness/collectives_driver/pace_report.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {

using namespace placebench::collectives;

namespace {

using nlohmann::json;

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::string opt_text(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "-"; }

// The fields of gang JSON that writer and reader share, each key spelled once.
template <class Record, class Member>
struct Field {
  const char* key;
  Member Record::*member;
};
constexpr Field<GangAttempt, std::optional<double>> kAttemptTimes[] = {
    {"ready_s", &GangAttempt::ready_s}, {"joined_s", &GangAttempt::joined_s},
    {"first_step_s", &GangAttempt::first_step_s}, {"released_s", &GangAttempt::released_s}};
constexpr Field<GangRank, bool> kRankFlags[] = {
    {"late", &GangRank::late}, {"missing", &GangRank::missing}, {"reported", &GangRank::reported}};
constexpr Field<GangRank, double> kRankNumbers[] = {{"process_start_s", &GangRank::process_start_s},
                                                    {"clock_offset_s", &GangRank::clock_offset_s},
                                                    {"clock_rtt_s", &GangRank::clock_rtt_s}};
constexpr Field<GangResult, std::optional<double>> kResultTimes[] = {
    {"group_ready_s", &GangResult::group_ready_s}, {"time_to_first_step_s", &GangResult::time_to_first_step_s}};
constexpr Field<GangResult, double> kResultNumbers[] = {{"schedule_start_s", &GangResult::schedule_start_s},
                                                        {"cleanup_s", &GangResult::cleanup_s},
                                                        {"bound_s", &GangResult::bound_s}};
constexpr Field<GangResult, int> kResultIntegers[] = {{"reporter", &GangResult::reporter}, {"retries", &GangResult::retries}};
constexpr const char* kSchemaVersion = "schema_version";
constexpr const char* kOutcome = "outcome";
constexpr const char* kCompletedAttempt = "completed_attempt";
constexpr const char* kStranded = "stranded_gpu_s";
constexpr const char* kRanks = "ranks";
constexpr const char* kRank = "rank";
constexpr const char* kHost = "host";
constexpr const char* kAttempts = "attempts";
constexpr const char* kAttempt = "attempt";

template <class Record, class Member, std::size_t N>
void write_fields(json& j, const Record& r, const Field<Record, Member> (&fields)[N]) {
  for (const auto& f : fields) {
    if constexpr (std::is_same_v<Member, std::optional<double>>)
      j[f.key] = opt_json(r.*f.member);
    else
      j[f.key] = r.*f.member;
  }
}

// Reads each field present with its type (a time: a number or null); others keep their default.
template <class Record, class Member, std::size_t N>
void read_fields(const json& j, Record& r, const Field<Record, Member> (&fields)[N]) {
  for (const auto& f : fields) {
    auto it = j.find(f.key);
    if (it == j.end()) continue;
    if constexpr (std::is_same_v<Member, bool>) {
      if (it->is_boolean()) r.*f.member = it->template get<bool>();
    } else if constexpr (std::is_same_v<Member, int>) {
      if (it->is_number_integer() && it->template get<std::int64_t>() >= INT32_MIN && it->template get<std::int64_t>() <= INT32_MAX)
        r.*f.member = it->template get<int>();
    } else {
      if (it->is_number()) r.*f.member = it->template get<double>();
    }
  }
}

json attempt_to_json(const GangAttempt& a) {
  json j{{kAttempt, a.attempt}};
  write_fields(j, a, kAttemptTimes);
  return j;
}

json rank_to_json(const GangRank& g, const GangReport& rep) {
  json attempts = json::array();
  for (const GangAttempt& a : g.attempts) attempts.push_back(attempt_to_json(a));
  json rank{{kRank, g.rank}, {kHost, g.host}, {kAttempts, attempts}};
  write_fields(rank, g, kRankFlags);
  write_fields(rank, g, kRankNumbers);
  auto idx = static_cast<std::size_t>(g.rank);
  if (idx < rep.placements.size()) {
    rank["device"] = rep.placements[idx]["device"];
    rank["placement"] = rep.placements[idx]["placement"];
    if (rep.placements[idx].contains("cpu_cap")) rank["cpu_cap"] = rep.placements[idx]["cpu_cap"];  // --slow-cap
  }
  return rank;
}

constexpr const char* kGangFix = "restore the file, or write it again with `placebench gang --json`";

GangRank rank_from_json(const json& r, const std::string& where) {
  if (!r.is_object() || !r.contains(kRank) || !r[kRank].is_number_integer() || !r.contains(kHost) || !r[kHost].is_string() ||
      !r.contains(kAttempts) || !r[kAttempts].is_array())
    throw InputError(fmt::format("{}: needs rank, host and attempts[]; give the JSON that `placebench gang --json` printed", where));
  GangRank g;
  g.rank = static_cast<int>(std::clamp<std::int64_t>(r[kRank].get<std::int64_t>(), INT32_MIN, INT32_MAX));
  g.host = r[kHost].get<std::string>();
  read_fields(r, g, kRankFlags);
  read_fields(r, g, kRankNumbers);
  for (const auto& a : r[kAttempts]) {
    if (!a.is_object()) continue;
    GangAttempt t;
    if (a.contains(kAttempt) && a[kAttempt].is_number_integer()) t.attempt = a[kAttempt].get<int>();
    else t.attempt = -1;  // no attempt number: matches no completed attempt
    read_fields(a, t, kAttemptTimes);
    g.attempts.push_back(t);
  }
  return g;
}

}  // namespace

json gang_to_json(const GangReport& rep) {
  const GangConfig& c = rep.config;
  const GangResult& r = rep.result;
  json ranks = json::array();
  for (const GangRank& g : r.ranks) ranks.push_back(rank_to_json(g, rep));
  json j{{kSchemaVersion, kGangSchemaVersion},
         {kOutcome, r.outcome},
         {"backend", backend_name(c.backend)},
         {"backend_reason", rep.backend_reason},
         {"nranks", r.ranks.size()},
         {"config",
          {{"late", c.late_ranks}, {"late_delay_s", c.late_delay_s}, {"missing", c.missing_ranks},
           {"deadline_s", c.deadline_s}, {"retries", c.retries}, {"backoff_s", c.backoff_s},
           {"gpus_per_rank", c.gpus_per_rank}, {"steps", c.steps}, {"step_bytes", c.step_bytes}, {"arm", rep.arm}}},
         {kCompletedAttempt, r.completed_attempt ? json(*r.completed_attempt) : json(nullptr)},
         {kStranded, r.stranded_gpu_s},
         {kRanks, ranks}};
  write_fields(j, r, kResultTimes);
  write_fields(j, r, kResultNumbers);
  write_fields(j, r, kResultIntegers);
  if (c.work_s > 0) j["config"]["step_work_s"] = c.work_s;
  if (!c.slow_ranks.empty()) j["config"].update({{"slow_ranks", c.slow_ranks}, {"slow_step_s", c.slow_s}});
  if (c.slow_cap > 0) j["config"].update({{"slow_cap", c.slow_cap}, {"work_units_per_s", c.work_units_per_s}});
  if (r.step_pace.blocks > 0) {
    PaceTimeline lanes(r.ranks.front().steps.size());
    for (std::size_t s = 0; s < lanes.size(); ++s)
      for (const GangRank& g : r.ranks) lanes[s].push_back(g.steps.at(s));
    j["pace"] = {{"steps", trial_pace_to_json(r.step_pace, true)}, {"lanes", lanes_to_json(lanes)}};
  }
  return j;
}

bool looks_like_gang_json(const json& j) { return j.is_object() && j.contains(kSchemaVersion) && j.contains(kRanks); }

double stranded_gpu_s_from_json(const json& v, const std::string& where) {
  // At most a year of a million GPUs: beyond that a sum of incidents could reach inf.
  constexpr double kMaxStrandedGpuS = 1e6 * 365.0 * 86400.0;
  if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= kMaxStrandedGpuS))
    throw InputError(fmt::format("{}: stranded_gpu_s: expected a number from 0 to 3.2e13 (GPU-seconds), got {}; {}", where,
                                 v.dump(), kGangFix));
  return v.get<double>();
}

GangResult gang_result_from_json(const json& j, const std::string& where) {
  const std::string fix = "give the JSON that `placebench gang --json` printed";
  if (!j.is_object() || !j.contains(kSchemaVersion) || !j.contains(kRanks) || !j[kRanks].is_array())
    throw InputError(fmt::format("{}: no schema_version and ranks[]: not gang JSON; {}", where, fix));
  if (j[kSchemaVersion] != kGangSchemaVersion)
    throw InputError(fmt::format("{}: schema_version: {} is not {} (the gang JSON this placebench reads); {}", where,
                                 j[kSchemaVersion].dump(), kGangSchemaVersion, fix));
  GangResult r;
  if (j.contains(kOutcome) && j[kOutcome].is_string()) r.outcome = j[kOutcome].get<std::string>();
  if (j.contains(kCompletedAttempt) && j[kCompletedAttempt].is_number_integer())
    r.completed_attempt = j[kCompletedAttempt].get<int>();
  if (!j.contains(kStranded)) throw InputError(fmt::format("{}: stranded_gpu_s: missing; {}", where, kGangFix));
  r.stranded_gpu_s = stranded_gpu_s_from_json(j[kStranded], where);
  read_fields(j, r, kResultTimes);
  read_fields(j, r, kResultNumbers);
  read_fields(j, r, kResultIntegers);
  for (std::size_t i = 0; i < j[kRanks].size(); ++i)
    r.ranks.push_back(rank_from_json(j[kRanks][i], fmt::format("{}: ranks[{}]", where, i)));
  return r;
}

std::string render_gang_table(const GangReport& rep) {
  const GangResult& r = rep.result;
  std::string out = fmt::format("Gang: {}   backend {} ({})   ranks {}   reporter rank {}\n", r.outcome,
                                backend_name(rep.config.backend), rep.backend_reason, r.ranks.size(), r.reporter);
  out += fmt::format("group ready {} s   first step {} s   stranded {:.3f} GPU-s   cleanup {:.3f} s   retries {}\n",
                     opt_text(r.group_ready_s), opt_text(r.time_to_first_step_s), r.stranded_gpu_s, r.cleanup_s, r.retries);
  out += fmt::format("(times in s since the earliest process start; schedule start {:.3f} s)\n\n", r.schedule_start_s);
  out += fmt::format("{:<5} {:<16} {:<8} {:>8} {:>7} {:>9} {:>9} {:>11} {:>9}\n", "rank", "host", "role", "start", "attempt",
                     "ready", "joined", "first step", "released");
  for (const GangRank& g : r.ranks) {
    std::string role = g.missing ? "missing" : g.late ? "late" : "on time";
    if (g.attempts.empty())
      out += fmt::format("{:<5} {:<16} {:<8} {:>8.3f} {:>7}\n", g.rank, g.host, role, g.process_start_s, "-");
    for (const GangAttempt& a : g.attempts)
      out += fmt::format("{:<5} {:<16} {:<8} {:>8.3f} {:>7} {:>9} {:>9} {:>11} {:>9}\n", g.rank, g.host, role, g.process_start_s,
                         a.attempt, opt_text(a.ready_s), opt_text(a.joined_s), opt_text(a.first_step_s), opt_text(a.released_s));
  }
  if (r.step_pace.blocks > 0) out += "\n" + pace_line("steps", r.step_pace);
  return out;
}

}  // namespace placebench::harness
