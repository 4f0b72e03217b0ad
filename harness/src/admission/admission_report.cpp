// Printers of `placebench admission`: the console table and the JSON (fields in docs/admission.md).
#include <fmt/format.h>

#include "placebench/harness/admission/admission.h"

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

json job_json(const JobTimeline& job) {
  json pods = json::array(), phases = json::array(), events = json::array(), waiting = json::array(), stages = json::array();
  for (const auto& p : job.pods) pods.push_back(pod_json(p));
  for (const auto& ph : job.podgroup_phases) phases.push_back({{"time", format_rfc3339(ph.time)}, {"phase", ph.phase}, {"source", ph.source}});
  for (const auto& e : job.events)
    events.push_back({{"first", format_rfc3339(e.first)}, {"last", format_rfc3339(e.last)}, {"count", e.count}, {"kind", e.kind},
                      {"object", e.object}, {"type", e.type}, {"reason", e.reason}, {"message", e.message}});
  for (const auto& a : job.waiting)
    waiting.push_back({{"pod", a.pod}, {"gpus", a.gpus}, {"from", format_rfc3339(a.from)}, {"until", format_rfc3339(a.until)}, {"gpu_s", a.gpu_s()}});
  for (const auto& s : job.stages)
    stages.push_back({{"name", s.name}, {"from", format_rfc3339(s.from)}, {"until", format_rfc3339(s.until)}, {"seconds", s.until - s.from},
                      {"finished", s.finished}});
  return {{"namespace", job.ns},
          {"group", job.group},
          {"scheduler", job.scheduler},
          {"min_member", job.min_member},
          {"min_member_source", job.min_member_from_podgroup ? "podgroup" : "pods seen"},
          {"first_created", when(job.first_created)},
          {"full_gang_at", when(job.full_gang_at)},
          {"all_ready_at", when(job.all_ready_at)},
          {"first_step_at", when(job.first_step_at)},
          {"time_to_full_gang_s", span(job.first_created, job.full_gang_at)},
          {"time_to_all_ready_s", span(job.first_created, job.all_ready_at)},
          {"time_to_first_step_s", span(job.first_created, job.first_step_at)},
          {"waiting_allocations", waiting},
          {"stranded_gpu_s", job.stranded_gpu_s},
          {"idle_before_ready_gpu_s", job.idle_before_ready_gpu_s},
          {"failure_at", when(job.failure_at)},
          {"failure_reason", job.failure_reason},
          {"cleanup_done_at", when(job.cleanup_done_at)},
          {"cleanup_s", span(job.failure_at, job.cleanup_done_at)},
          {"retries", {{"restarts", job.restarts}, {"recreated_pods", job.recreated}}},
          {"stages", stages},
          {"delay_stage", job.delay_stage},
          {"failed_scheduling_reasons", job.failed_scheduling_reasons},
          {"podgroup_phases", phases},
          {"events", events},
          {"pods", pods}};
}

}  // namespace

json admission_to_json(const AdmissionReport& report) {
  json snaps = json::array(), jobs = json::array();
  for (const auto& s : report.snapshots) snaps.push_back({{"time", format_rfc3339(s.time)}, {"files", s.files}});
  for (const auto& j : report.jobs) jobs.push_back(job_json(j));
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
    out += fmt::format("\njob {}/{} (scheduler {}, gang of {}), times after {}\n", job.ns, job.group, job.scheduler, job.min_member,
                       z ? format_rfc3339(*z) : "-");
    out += fmt::format("{:<24} {:<12} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "pod", "node", "gpus", "scheduled", "init",
                       "cont.rdy", "ready", "1st step", "released", "restarts");
    for (const auto& p : job.pods) {
      Time rel = p.pod.gone ? p.pod.gone : p.pod.deleted;
      out += fmt::format("{:<24} {:<12} {:>4g} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}\n", p.pod.name, p.pod.node.empty() ? "-" : p.pod.node,
                         p.pod.gpus, offset(p.pod.scheduled, z), offset(p.pod.initialized, z), offset(p.pod.containers_ready, z),
                         offset(p.pod.ready, z), offset(p.first_step, z), offset(rel, z), p.pod.restarts);
    }
    for (const auto& ph : job.podgroup_phases) out += fmt::format("  podgroup {:<10} {} ({})\n", ph.phase, offset(ph.time, z), ph.source);
    out += fmt::format("  full gang bound   {}\n  all ready         {}\n", offset(job.full_gang_at, z), offset(job.all_ready_at, z));
    if (job.first_step_at) out += fmt::format("  first step        {}\n", offset(job.first_step_at, z));
    out += fmt::format("  stranded          {:.0f} GPU-s ({:.1f} GPU-min) on {} waiting allocation(s)\n", job.stranded_gpu_s,
                       job.stranded_gpu_s / 60, job.waiting.size());
    out += fmt::format("  bound, not ready  {:.0f} GPU-s\n", job.idle_before_ready_gpu_s);
    if (job.failure_at)
      out += fmt::format("  failure           {} ({}); cleanup {}\n", offset(job.failure_at, z), job.failure_reason,
                         job.cleanup_done_at ? fmt::format("{:.0f}s", *job.cleanup_done_at - *job.failure_at) : "unfinished");
    out += fmt::format("  retries           {} restart(s), {} recreated pod(s)\n", job.restarts, job.recreated);
    for (const auto& s : job.stages)
      out += fmt::format("  stage {:<20} {:>7.0f}s{}\n", s.name, s.until - s.from, s.finished ? "" : " (unfinished)");
    if (!job.delay_stage.empty()) out += fmt::format("  delay came from   {}\n", job.delay_stage);
    for (const auto& m : job.failed_scheduling_reasons) out += fmt::format("  unschedulable:    {}\n", m);
  }
  for (const auto& w : report.warnings) out += fmt::format("warning: {}\n", w);
  return out;
}

}  // namespace placebench::harness::admission
