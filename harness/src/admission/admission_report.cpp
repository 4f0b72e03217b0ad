// The console table of `placebench admission` (its JSON: admission_json.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::admission {
namespace {

// "+12m00s" after the job's first creation, "-" when not observed.
std::string offset(const Time& t, const Time& zero) {
  if (!t || !zero) return "-";
  double s = *t - *zero;
  long long whole = static_cast<long long>(s >= 0 ? s + 0.5 : s - 0.5);
  if (std::abs(whole) < 60) return fmt::format("+{}s", whole);
  return fmt::format("+{}m{:02}s", whole / 60, std::abs(whole % 60));
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

// The pods' table: every column as wide as its widest cell (header included), so that the table fits 100
// columns for pod and node names of up to about 20 characters.
std::string pod_table(const JobTimeline& job, const Time& z) {
  std::vector<std::vector<std::string>> rows = {
      {"pod", "node", "gpus", "scheduled", "init", "cont.rdy", "ready", "1st step", "released", "restarts"}};
  for (const auto& p : job.pods) {
    const Time rel = p.pod.gone ? p.pod.gone : p.pod.deleted;
    rows.push_back({escape_control(p.pod.name), p.pod.node.empty() ? "-" : escape_control(p.pod.node), fmt::format("{:g}", p.pod.gpus),
                    offset(p.pod.scheduled, z), offset(p.pod.initialized, z), offset(p.pod.containers_ready, z),
                    offset(p.pod.ready, z), offset(p.first_step, z), offset(rel, z), std::to_string(p.pod.restarts)});
  }
  return fit_columns(rows, "llrrrrrrrr");  // pod and node left-aligned, the figures right-aligned
}

}  // namespace

std::string render_admission_table(const AdmissionReport& report) {
  std::string out = fmt::format("admission: {} snapshot(s), observed until {}\n", report.snapshots.size(), format_rfc3339(report.observed_until));
  for (const auto& job : report.jobs) {
    const Time& z = job.first_created;
    out += fmt::format("\njob {}/{} (scheduler {}, gang of {}{}), times after {}\n", escape_control(job.ns), escape_control(job.group), escape_control(job.scheduler), job.pod_count,
                       job.min_member < job.pod_count ? fmt::format(", minimum {}", job.min_member) : "", z ? format_rfc3339(*z) : "-");
    out += pod_table(job, z);
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
