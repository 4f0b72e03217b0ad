// Printers of `placebench admission`: the console table and the JSON (fields in docs/admission.md).
#include <fmt/format.h>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::admission {
namespace {

using nlohmann::json;

json when(const Time& t) { return t ? json(format_rfc3339(*t)) : json(nullptr); }
json span(const Time& a, const Time& b) { return a && b ? json(*b - *a) : json(nullptr); }

// "+12m00s" after the job's first creation, "-" when not observed.
std::string offset(const Time& t, const Time& zero) {
  if (!t || !zero) return "-";
  double s = *t - *zero;
  long long whole = static_cast<long long>(s >= 0 ? s + 0.5 : s - 0.5);
  if (std::abs(whole) < 60) return fmt::format("+{}s", whole);
  return fmt::format("+{}m{:02}s", whole / 60, std::abs(whole % 60));
}

json pod_json(const PodTimeline& p) {
  const PodRecord& r = p.pod;
  json j{{"name", r.name},          {"uid", r.uid},
         {"node", r.node},          {"phase", r.phase},
         {"gpus", r.gpus},          {"gpumem_mib", r.gpumem_mib},
         {"gpumem_pct", r.gpumem_pct}, {"gpucores_pct", r.gpucores_pct},
         {"created", when(r.created)}, {"scheduled", when(r.scheduled)},
         {"initialized", when(r.initialized)}, {"containers_ready", when(r.containers_ready)},
         {"ready", when(r.ready)},  {"started", when(r.started)},
         {"deleted", when(r.deleted)}, {"gone", when(r.gone)},
         {"failed", when(r.failed)}, {"failed_reason", r.failed_reason},
         {"restarts", r.restarts},  {"waiting_reasons", r.waiting_reasons},
         {"rank", p.rank ? json(*p.rank) : json(nullptr)},
         {"rank_ready", when(p.rank_ready)}, {"rank_joined", when(p.rank_joined)}, {"first_step", when(p.first_step)}};
  return j;
}

json allocations_json(const std::vector<Allocation>& list) {
  json out = json::array();
  for (const auto& a : list)
    out.push_back({{"pod", a.pod}, {"gpus", a.gpus}, {"from", format_rfc3339(a.from)}, {"until", format_rfc3339(a.until)}, {"gpu_s", a.gpu_s()}});
  return out;
}

json stages_json(const std::vector<Stage>& list) {
  json out = json::array();
  for (const auto& s : list)
    out.push_back({{"name", s.name}, {"from", format_rfc3339(s.from)}, {"until", format_rfc3339(s.until)}, {"seconds", s.until - s.from},
                   {"finished", s.finished}});
  return out;
}

json changes_json(const std::vector<PhaseChange>& list, const char* what) {
  json out = json::array();
  for (const auto& ph : list) out.push_back({{"time", format_rfc3339(ph.time)}, {what, ph.phase}, {"source", ph.source}});
  return out;
}

json attempt_json(const JobTimeline& job, const Attempt& a, double until) {
  json pods = json::array(), carried = json::array();
  for (std::size_t i : a.pods) pods.push_back(job.pods[i].pod.name);
  for (std::size_t i : a.carried_in) carried.push_back(job.pods[i].pod.name);
  return {{"attempt", a.number},
          {"start", format_rfc3339(a.start)},
          {"pods", pods},
          {"carried_from_previous", carried},
          {"min_gang_at", when(a.min_gang_at)},
          {"full_gang_at", when(a.full_gang_at)},
          {"all_ready_at", when(a.all_ready_at)},
          {"first_step_at", when(a.first_step_at)},
          {"time_to_full_gang_s", a.full_gang_at ? json(*a.full_gang_at - a.start) : json(nullptr)},
          {"failure_at", when(a.failure_at)},
          {"failure_reason", a.failure_reason},
          {"cleanup_done_at", when(a.cleanup_done_at)},
          {"cleanup_s", span(a.failure_at, a.cleanup_done_at)},
          {"recovered_at", when(a.recovered_at)},
          {"waiting_allocations", allocations_json(a.waiting)},
          {"held_after_failure", allocations_json(a.held_after_failure)},
          {"stranded_gpu_s", a.stranded_gpu_s},
          {"idle_before_ready_gpu_s", a.idle_before_ready_gpu_s},
          {"stages", stages_json(a.stages)},
          {"delay_stage", a.delay_stage},
          {"bound_at_end", a.bound_at_end},
          {"pending", a.pending},
          {"pending_age_s", a.pending ? json(until - a.start) : json(nullptr)}};
}

json job_json(const JobTimeline& job, double until) {
  json pods = json::array(), events = json::array(), attempts = json::array();
  for (const auto& p : job.pods) pods.push_back(pod_json(p));
  for (const auto& e : job.events)
    events.push_back({{"first", format_rfc3339(e.first)}, {"last", format_rfc3339(e.last)}, {"count", e.count}, {"kind", e.kind},
                      {"object", e.object}, {"type", e.type}, {"reason", e.reason}, {"message", e.message}});
  for (const auto& a : job.attempts) attempts.push_back(attempt_json(job, a, until));
  return {{"namespace", job.ns},
          {"group", job.group},
          {"scheduler", job.scheduler},
          {"min_member", job.min_member},
          {"min_member_source", job.min_member_source},
          {"pod_count", job.pod_count},
          {"pod_count_source", job.pod_count_source},
          {"min_below_pod_count", job.min_member < job.pod_count},
          {"workload", job.workload.empty() ? json(nullptr) : json(job.workload)},
          {"workload_conditions", changes_json(job.workload_conditions, "condition")},
          {"first_created", when(job.first_created)},
          {"min_gang_at", when(job.min_gang_at)},
          {"full_gang_at", when(job.full_gang_at)},
          {"all_ready_at", when(job.all_ready_at)},
          {"first_step_at", when(job.first_step_at)},
          {"time_to_min_gang_s", span(job.first_created, job.min_gang_at)},
          {"time_to_full_gang_s", span(job.first_created, job.full_gang_at)},
          {"time_to_all_ready_s", span(job.first_created, job.all_ready_at)},
          {"time_to_first_step_s", span(job.first_created, job.first_step_at)},
          {"waiting_allocations", allocations_json(job.waiting)},
          {"held_after_failure", allocations_json(job.held_after_failure)},
          {"stranded_gpu_s", job.stranded_gpu_s},
          {"idle_before_ready_gpu_s", job.idle_before_ready_gpu_s},
          {"failure_at", when(job.failure_at)},
          {"failure_reason", job.failure_reason},
          {"cleanup_done_at", when(job.cleanup_done_at)},
          {"cleanup_s", span(job.failure_at, job.cleanup_done_at)},
          {"retries", {{"restarts", job.restarts}, {"recreated_pods", job.recreated}}},
          {"stages", stages_json(job.stages)},
          {"delay_stage", job.delay_stage},
          {"attempts", attempts},
          {"warnings", job.warnings},
          {"failed_scheduling_reasons", job.failed_scheduling_reasons},
          {"podgroup_phases", changes_json(job.podgroup_phases, "phase")},
          {"events", events},
          {"pods", pods}};
}

// One attempt's figures in the table, offsets after the job's first creation.
std::string attempt_table(const Attempt& a, const JobTimeline& job, const Time& z, bool several, double until) {
  std::string out;
  if (several) out += fmt::format("  attempt {} from {}{}\n", a.number, offset(a.start, z), a.pending ? fmt::format(
                                      ": still pending at the last snapshot, {:.0f}s old, {} of {} pods bound", until - a.start,
                                      a.bound_at_end, job.pod_count) : "");
  if (job.min_member < job.pod_count) out += fmt::format("  minimum ({}) bound {}\n", job.min_member, offset(a.min_gang_at, z));
  out += fmt::format("  full gang bound   {}\n  all ready         {}\n", offset(a.full_gang_at, z), offset(a.all_ready_at, z));
  if (a.first_step_at) out += fmt::format("  first step        {}\n", offset(a.first_step_at, z));
  double held = 0;
  for (const auto& h : a.held_after_failure) held += h.gpu_s();
  out += fmt::format("  stranded          {:.0f} GPU-s ({:.1f} GPU-min) on {} waiting allocation(s){}\n", a.stranded_gpu_s,
                     a.stranded_gpu_s / 60, a.waiting.size(), held > 0 ? fmt::format(", {:.0f} GPU-s held after the failure", held) : "");
  out += fmt::format("  bound, not ready  {:.0f} GPU-s\n", a.idle_before_ready_gpu_s);
  if (a.failure_at)
    out += fmt::format("  failure           {} ({}); {}\n", offset(a.failure_at, z), escape_control(a.failure_reason),
                       a.recovered_at ? "recovered in place " + offset(a.recovered_at, z)
                       : a.cleanup_done_at ? fmt::format("cleanup {:.0f}s", *a.cleanup_done_at - *a.failure_at) : "cleanup unfinished");
  for (const auto& s : a.stages)
    out += fmt::format("  stage {:<20} {:>7.0f}s{}\n", escape_control(s.name), s.until - s.from, s.finished ? "" : " (unfinished)");
  if (!a.delay_stage.empty()) out += fmt::format("  delay came from   {}\n", escape_control(a.delay_stage));
  return out;
}

}  // namespace

json admission_to_json(const AdmissionReport& report) {
  json snaps = json::array(), jobs = json::array();
  for (const auto& s : report.snapshots) snaps.push_back({{"time", format_rfc3339(s.time)}, {"files", s.files}});
  for (const auto& j : report.jobs) jobs.push_back(job_json(j, report.observed_until));
  return {{"schema_version", kAdmissionSchemaVersion},
          {"kind", "admission"},
          {"snapshots", snaps},
          {"observed_until", format_rfc3339(report.observed_until)},
          {"gang_file", report.gang_file.empty() ? json(nullptr) : json(report.gang_file)},
          {"warnings", report.warnings},
          {"jobs", jobs}};
}

std::string render_admission_table(const AdmissionReport& report) {
  std::string out = fmt::format("admission: {} snapshot(s), observed until {}\n", report.snapshots.size(), format_rfc3339(report.observed_until));
  for (const auto& job : report.jobs) {
    const Time& z = job.first_created;
    out += fmt::format("\njob {}/{} (scheduler {}, gang of {}{}), times after {}\n", escape_control(job.ns), escape_control(job.group), escape_control(job.scheduler), job.pod_count,
                       job.min_member < job.pod_count ? fmt::format(", minimum {}", job.min_member) : "", z ? format_rfc3339(*z) : "-");
    out += fmt::format("{:<24} {:<12} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "pod", "node", "gpus", "scheduled", "init",
                       "cont.rdy", "ready", "1st step", "released", "restarts");
    for (const auto& p : job.pods) {
      Time rel = p.pod.gone ? p.pod.gone : p.pod.deleted;
      out += fmt::format("{:<24} {:<12} {:>4g} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}\n", escape_control(p.pod.name), p.pod.node.empty() ? "-" : escape_control(p.pod.node),
                         p.pod.gpus, offset(p.pod.scheduled, z), offset(p.pod.initialized, z), offset(p.pod.containers_ready, z),
                         offset(p.pod.ready, z), offset(p.first_step, z), offset(rel, z), p.pod.restarts);
    }
    for (const auto& ph : job.podgroup_phases) out += fmt::format("  podgroup {:<10} {} ({})\n", escape_control(ph.phase), offset(ph.time, z), escape_control(ph.source));
    for (const auto& c : job.workload_conditions) out += fmt::format("  workload {:<24} {}\n", escape_control(c.phase), offset(c.time, z));
    for (const auto& a : job.attempts) out += attempt_table(a, job, z, job.attempts.size() > 1, report.observed_until);
    out += fmt::format("  retries           {} restart(s), {} recreated pod(s)\n", job.restarts, job.recreated);
    for (const auto& m : job.failed_scheduling_reasons) out += fmt::format("  unschedulable:    {}\n", escape_control(m));
  }
  for (const auto& w : report.warnings) out += fmt::format("warning: {}\n", escape_control(w));
  return out;
}

}  // namespace placebench::harness::admission
