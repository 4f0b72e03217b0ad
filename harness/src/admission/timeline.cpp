// From records to each gang's timeline and its figures: time to full gang, waiting allocations (stranded
// GPU-seconds at the scheduler level), cleanup after a failure, retries and the stage the delay came from.
// Definitions: docs/admission.md, "Figures".
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "placebench/harness/admission/admission.h"

namespace placebench::harness::admission {
namespace {

// Reasons that mean the job (or a worker) has failed and cleanup begins.
const std::set<std::string> kFailureReasons = {"BackoffLimitExceeded", "DeadlineExceeded", "JobFailed", "PodFailed",
                                               "Evicted", "Preempted", "PodGroupFailed"};

// When a pod stopped holding its GPUs: gone from the listings, else its deletion, else its failure.
Time released(const PodRecord& p) {
  if (p.gone) return p.gone;
  if (p.deleted) return p.deleted;
  if (p.phase == "Failed" || p.phase == "Succeeded") return p.failed ? p.failed : Time(p.last_seen);
  return std::nullopt;
}

// The first time at least `need` pods had reached `mark` and not yet been released.
Time first_time_with(const std::vector<PodTimeline>& pods, int need, Time PodRecord::*mark) {
  std::vector<double> times;
  for (const auto& p : pods)
    if (p.pod.*mark) times.push_back(*(p.pod.*mark));
  std::sort(times.begin(), times.end());
  for (double t : times) {
    int n = 0;
    for (const auto& p : pods) {
      Time r = released(p.pod);
      if (p.pod.*mark && *(p.pod.*mark) <= t && (!r || *r > t)) ++n;
    }
    if (n >= need) return t;
  }
  return std::nullopt;
}

std::string group_of(const PodRecord& p) {
  if (!p.group.empty()) return p.group;
  if (!p.job_names.empty()) return p.job_names.front();
  return "(no group)";
}

bool belongs(const EventRecord& e, const JobTimeline& job, const std::set<std::string>& names) {
  if (e.ns != job.ns && !e.ns.empty()) return false;
  if (e.kind == "Pod") {
    for (const auto& p : job.pods)
      if (p.pod.name == e.object) return true;
    return false;
  }
  return e.object == job.group || names.count(e.object);
}

void match_gang(JobTimeline& job, const GangTimeline& gang, const AnalysisOptions& options, std::vector<std::string>& warnings) {
  std::vector<std::pair<PodTimeline*, const GangRankTimes*>> matches;
  for (const auto& rank : gang.ranks) {
    PodTimeline* hit = nullptr;
    for (auto& p : job.pods)
      if (p.pod.name == rank.host && !released(p.pod)) hit = &p;
    for (auto& p : job.pods)
      if (!hit && p.pod.name == rank.host) hit = &p;
    if (!hit) {
      std::vector<PodTimeline*> on_node;
      for (auto& p : job.pods)
        if (p.pod.node == rank.host) on_node.push_back(&p);
      if (on_node.size() == 1) hit = on_node.front();
    }
    if (hit) matches.emplace_back(hit, &rank);
  }
  if (matches.empty()) return;
  Time zero = options.gang_zero;
  if (!zero)
    for (const auto& [pod, rank] : matches)
      if (pod->pod.started && (!zero || *pod->pod.started < *zero)) zero = pod->pod.started;
  if (!zero) {
    warnings.push_back(fmt::format("{}: {}: no container start time among the matched pods to align the gang JSON to; give --gang-zero TIME",
                                   gang.file, job.group));
    return;
  }
  auto shift = [&](Time t) { return t ? Time(*t + *zero) : std::nullopt; };
  bool all_first = true;
  double latest_first = 0;
  for (auto& [pod, rank] : matches) {
    pod->rank = rank->rank;
    pod->rank_ready = shift(rank->ready);
    pod->rank_joined = shift(rank->joined);
    pod->first_step = shift(rank->first_step);
    if (pod->first_step) latest_first = std::max(latest_first, *pod->first_step);
    else all_first = false;
  }
  if (all_first && static_cast<int>(matches.size()) >= job.min_member) job.first_step_at = latest_first;
  if (static_cast<int>(matches.size()) < static_cast<int>(gang.ranks.size()))
    warnings.push_back(fmt::format("{}: {} of {} ranks matched a pod of {} by pod name or node", gang.file, matches.size(),
                                   gang.ranks.size(), job.group));
}

void derive_failure(JobTimeline& job, double until) {
  auto consider = [&](double t, const std::string& why) {
    if (!job.failure_at || t < *job.failure_at) {
      job.failure_at = t;
      job.failure_reason = why;
    }
  };
  for (const auto& p : job.pods)
    if (p.pod.failed) consider(*p.pod.failed, fmt::format("pod {}: {}", p.pod.name, p.pod.failed_reason));
  for (const auto& e : job.events)
    if (kFailureReasons.count(e.reason)) consider(e.first, fmt::format("{} {} {}: {}", e.kind, e.object, e.reason, e.message));
  if (!job.all_ready_at) {  // torn down before it was ever all ready: the first kill or deletion
    for (const auto& e : job.events)
      if (e.reason == "Killing") consider(e.first, fmt::format("{} {} Killing: {}", e.kind, e.object, e.message));
    for (const auto& p : job.pods)
      if (p.pod.deleted) consider(*p.pod.deleted, fmt::format("pod {} deleted before the gang was ready", p.pod.name));
  }
  if (!job.failure_at) return;
  double done = *job.failure_at;
  for (const auto& p : job.pods) {
    if (*p.pod.created > *job.failure_at) continue;  // a replacement, not part of the cleanup
    Time r = released(p.pod);
    if (!r) return;  // still holding its GPUs at the end of observation: cleanup unfinished
    if (*r > *job.failure_at) done = std::max(done, *r);
  }
  if (done <= until) job.cleanup_done_at = done;
}

void derive_allocations(JobTimeline& job, double until) {
  Time ready_mark = job.first_step_at ? job.first_step_at : job.all_ready_at;
  for (const auto& p : job.pods) {
    if (!p.pod.scheduled || p.pod.gpus <= 0) continue;
    double from = *p.pod.scheduled;
    double end = until;
    if (Time r = released(p.pod)) end = std::min(end, *r);
    double waiting_until = job.full_gang_at ? std::min(end, *job.full_gang_at) : end;
    if (waiting_until > from) {
      job.waiting.push_back({p.pod.name, p.pod.gpus, from, waiting_until});
      job.stranded_gpu_s += job.waiting.back().gpu_s();
    }
    double idle_until = ready_mark ? std::min(end, *ready_mark) : end;
    if (idle_until > from) job.idle_before_ready_gpu_s += p.pod.gpus * (idle_until - from);
  }
}

// scheduling: first creation -> the whole gang bound; image pull and start: -> every container started (with
// the gang JSON: the rank processes exist) or, without it, -> all Ready; rendezvous: -> the first useful step.
void derive_stages(JobTimeline& job, double until, bool have_gang) {
  if (!job.first_created) return;
  auto add = [&](const char* name, double from, Time to) {
    job.stages.push_back({name, from, to ? *to : std::max(from, until), static_cast<bool>(to)});
  };
  Time started_all;
  if (have_gang) {
    int n = 0;
    for (const auto& p : job.pods)
      if (p.rank && p.pod.started) {
        ++n;
        started_all = started_all ? std::max(*started_all, *p.pod.started) : *p.pod.started;
      }
    if (n < job.min_member) started_all.reset();
  }
  add("scheduling", *job.first_created, job.full_gang_at);
  if (job.full_gang_at) add("image pull and start", *job.full_gang_at, have_gang ? started_all : job.all_ready_at);
  if (have_gang && started_all) add("rendezvous", *started_all, job.first_step_at);
  const Stage* longest = nullptr;
  for (const auto& s : job.stages)
    if (!longest || s.until - s.from > longest->until - longest->from) longest = &s;
  if (longest) job.delay_stage = longest->name;
}

}  // namespace

AdmissionReport analyze_admission(const ClusterRecords& records, const GangTimeline* gang, const AnalysisOptions& options) {
  AdmissionReport report;
  report.snapshots = records.snapshots;
  report.warnings = records.warnings;
  if (gang) report.gang_file = gang->file;
  double until = records.snapshots.empty() ? 0 : records.snapshots.back().time;
  for (const auto& p : records.pods) until = std::max(until, p.last_seen);
  report.observed_until = until;

  std::map<std::pair<std::string, std::string>, JobTimeline> jobs;
  for (const auto& p : records.pods) {
    JobTimeline& job = jobs[{p.ns, group_of(p)}];
    job.ns = p.ns;
    job.group = group_of(p);
    job.pods.push_back({p, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  }
  for (const auto& g : records.podgroups) {  // a PodGroup with no pods yet is a job too
    JobTimeline& job = jobs[{g.ns, g.name}];
    job.ns = g.ns;
    job.group = g.name;
  }
  for (auto& [key, job] : jobs) {
    if (!options.only_group.empty() && job.group != options.only_group) continue;
    std::set<std::string> names, job_names;
    for (const auto& p : job.pods) {
      names.insert(p.pod.name);
      job_names.insert(p.pod.job_names.begin(), p.pod.job_names.end());
      if (!job.first_created || *p.pod.created < *job.first_created) job.first_created = p.pod.created;
    }
    job.scheduler = "none";
    for (const auto& g : records.podgroups) {
      if (g.ns != job.ns || g.name != job.group) continue;
      job.scheduler = g.api.find("volcano") != std::string::npos ? "volcano" : "scheduler-plugins";
      job.podgroup_phases = g.phases;
      if (g.min_member > 0) {
        job.min_member = g.min_member;
        job.min_member_from_podgroup = true;
      }
      if (g.created && (!job.first_created || *g.created < *job.first_created)) job.first_created = g.created;
    }
    if (!job.min_member) job.min_member = static_cast<int>(names.size());
    for (const auto& e : records.events)
      if (belongs(e, job, job_names)) job.events.push_back(e);
    std::sort(job.events.begin(), job.events.end(), [](const EventRecord& a, const EventRecord& b) { return a.first < b.first; });
    for (const auto& e : job.events)
      if ((e.reason == "FailedScheduling" || e.reason.find("Unschedulable") != std::string::npos) &&
          std::find(job.failed_scheduling_reasons.begin(), job.failed_scheduling_reasons.end(), e.message) == job.failed_scheduling_reasons.end())
        job.failed_scheduling_reasons.push_back(e.message);
    std::sort(job.pods.begin(), job.pods.end(), [](const PodTimeline& a, const PodTimeline& b) {
      return a.pod.name != b.pod.name ? a.pod.name < b.pod.name : *a.pod.created < *b.pod.created;
    });
    if (job.min_member > 0) {
      job.full_gang_at = first_time_with(job.pods, job.min_member, &PodRecord::scheduled);
      job.all_ready_at = first_time_with(job.pods, job.min_member, &PodRecord::ready);
    }
    if (gang) match_gang(job, *gang, options, report.warnings);
    for (const auto& p : job.pods) job.restarts += p.pod.restarts;
    job.recreated = static_cast<int>(job.pods.size() - names.size());
    derive_failure(job, until);
    derive_allocations(job, until);
    derive_stages(job, until, gang != nullptr);
    report.jobs.push_back(std::move(job));
  }
  if (!options.only_group.empty() && report.jobs.empty())
    report.warnings.push_back(fmt::format("no pods or PodGroup of group '{}' in the snapshots", options.only_group));
  return report;
}

}  // namespace placebench::harness::admission
