// Gates a CI job can fail on (`admission --max-stranded GPU-S --max-time-to-gang TIME --max-cleanup TIME`,
// exit 3 as `check`): each judged on every job. A figure that can still grow (a gang not yet whole, a cleanup
// still running, GPUs still waiting at the last snapshot) and is under its limit is `unknown`, never a pass.
#include <fmt/format.h>

#include <algorithm>

#include "placebench/harness/admission/admission.h"

namespace placebench::harness::admission {
namespace {

GateFinding finding(const char* gate, const JobTimeline& job, double limit) {
  GateFinding f;
  f.gate = gate;
  f.job = job.ns + "/" + job.group;
  f.limit = limit;
  return f;
}

// value > limit: exceeded; else ok when final, unknown when it may still grow.
void judge(GateFinding& f, double value, bool final_value, const std::string& what) {
  f.value = value;
  f.verdict = value > f.limit ? "exceeded" : final_value ? "ok" : "unknown";
  f.detail = fmt::format("{} {:.0f} {} limit {:.0f}{}", what, value, value > f.limit ? ">" : "<=", f.limit,
                         f.verdict == "unknown" ? " so far, still growing at the last snapshot" : "");
}

bool still_open(const JobTimeline& job) {
  for (const auto& a : job.attempts)
    if (a.pending || (a.failure_at && !a.cleanup_done_at && !a.recovered_at) || (!a.failure_at && !a.full_gang_at)) return true;
  return false;
}

GateFinding time_to_gang(const JobTimeline& job, double limit, double until) {
  GateFinding f = finding("max-time-to-gang", job, limit);
  Time whole;
  for (const auto& a : job.attempts)
    if (a.full_gang_at && !whole) whole = a.full_gang_at;
  if (!job.first_created) {
    f.verdict = "unknown";
    f.detail = "no creation time";
    return f;
  }
  if (whole) judge(f, *whole - *job.first_created, true, "time to the whole gang (s)");
  else judge(f, until - *job.first_created, false, "never whole; observed (s)");
  return f;
}

GateFinding cleanup(const JobTimeline& job, double limit, double until) {
  GateFinding f = finding("max-cleanup", job, limit);
  double worst = 0;
  bool final_value = true;
  for (const auto& a : job.attempts) {
    if (!a.failure_at || a.recovered_at) continue;
    if (a.cleanup_done_at) worst = std::max(worst, *a.cleanup_done_at - *a.failure_at);
    else worst = std::max(worst, until - *a.failure_at), final_value = false;
  }
  judge(f, worst, final_value, "longest cleanup (s)");
  return f;
}

}  // namespace

std::vector<GateFinding> judge_gates(const AdmissionReport& report, const AdmissionGates& gates) {
  std::vector<GateFinding> out;
  for (const auto& job : report.jobs) {
    if (gates.max_stranded_gpu_s) {
      GateFinding f = finding("max-stranded", job, *gates.max_stranded_gpu_s);
      judge(f, job.stranded_gpu_s, !still_open(job), "stranded GPU-s");
      out.push_back(f);
    }
    if (gates.max_time_to_gang_s) out.push_back(time_to_gang(job, *gates.max_time_to_gang_s, report.observed_until));
    if (gates.max_cleanup_s) out.push_back(cleanup(job, *gates.max_cleanup_s, report.observed_until));
  }
  if (out.empty() && gates.any()) out.push_back({"any", "-", "unknown", "no job in the snapshots to judge", 0, std::nullopt});
  return out;
}

nlohmann::json gates_to_json(const std::vector<GateFinding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings)
    out.push_back({{"gate", f.gate}, {"job", f.job}, {"limit", f.limit}, {"value", f.value ? nlohmann::json(*f.value) : nlohmann::json(nullptr)},
                   {"verdict", f.verdict}, {"detail", f.detail}});
  return out;
}

std::string render_gates_table(const std::vector<GateFinding>& findings) {
  std::string out;
  for (const auto& f : findings) out += fmt::format("gate --{} {}: {} ({})\n", f.gate, f.job, f.verdict, f.detail);
  return out;
}

}  // namespace placebench::harness::admission
