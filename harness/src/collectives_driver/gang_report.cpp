// JSON and console summary of `placebench gang` (see gang_report.h).
#include "placebench/harness/collectives_driver/gang_report.h"

#include <fmt/format.h>

namespace placebench::harness {

using namespace placebench::collectives;

namespace {

nlohmann::json opt_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
std::string opt_text(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "-"; }

}  // namespace

nlohmann::json gang_to_json(const GangReport& rep) {
  const GangConfig& c = rep.config;
  const GangResult& r = rep.result;
  nlohmann::json ranks = nlohmann::json::array();
  for (const GangRank& g : r.ranks) {
    nlohmann::json attempts = nlohmann::json::array();
    for (const GangAttempt& a : g.attempts)
      attempts.push_back({{"attempt", a.attempt},
                          {"ready_s", opt_json(a.ready_s)},
                          {"joined_s", opt_json(a.joined_s)},
                          {"first_step_s", opt_json(a.first_step_s)},
                          {"released_s", opt_json(a.released_s)}});
    nlohmann::json rank{{"rank", g.rank},
                        {"host", g.host},
                        {"late", g.late},
                        {"missing", g.missing},
                        {"reported", g.reported},
                        {"process_start_s", g.process_start_s},
                        {"clock_offset_s", g.clock_offset_s},
                        {"clock_rtt_s", g.clock_rtt_s},
                        {"attempts", attempts}};
    auto idx = static_cast<std::size_t>(g.rank);
    if (idx < rep.placements.size()) {
      rank["device"] = rep.placements[idx]["device"];
      rank["placement"] = rep.placements[idx]["placement"];
    }
    ranks.push_back(std::move(rank));
  }
  return {{"schema_version", kGangSchemaVersion},
          {"outcome", r.outcome},
          {"backend", backend_name(c.backend)},
          {"backend_reason", rep.backend_reason},
          {"nranks", r.ranks.size()},
          {"reporter", r.reporter},
          {"config",
           {{"late", c.late_ranks}, {"late_delay_s", c.late_delay_s}, {"missing", c.missing_ranks},
            {"deadline_s", c.deadline_s}, {"retries", c.retries}, {"backoff_s", c.backoff_s},
            {"gpus_per_rank", c.gpus_per_rank}, {"steps", c.steps}, {"step_bytes", c.step_bytes}, {"arm", rep.arm}}},
          {"schedule_start_s", r.schedule_start_s},
          {"completed_attempt", r.completed_attempt ? nlohmann::json(*r.completed_attempt) : nlohmann::json(nullptr)},
          {"group_ready_s", opt_json(r.group_ready_s)},
          {"time_to_first_step_s", opt_json(r.time_to_first_step_s)},
          {"stranded_gpu_s", r.stranded_gpu_s},
          {"cleanup_s", r.cleanup_s},
          {"retries", r.retries},
          {"bound_s", r.bound_s},
          {"ranks", ranks}};
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
  return out;
}

}  // namespace placebench::harness
