// From records to each gang's timeline: pods grouped into jobs, the job's events, the gang JSON's ranks
// matched to pods; the gang's size (gang_size.cpp) and its attempts with their figures (attempts.cpp).
// Definitions: docs/admission.md, "Figures". Every step is a sort or an index: n log n in the records.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "placebench/harness/admission/admission.h"
#include "timeline_parts.h"

namespace placebench::harness::admission {
namespace {

using detail::released;
using Key = std::pair<std::string, std::string>;  // (namespace, group)

std::string group_of(const PodRecord& p) {
  if (!p.group.empty()) return p.group;
  if (!p.job_names.empty()) return p.job_names.front();
  return "(no group)";
}

void match_gang(JobTimeline& job, const GangTimeline& gang, const AnalysisOptions& options, std::vector<std::string>& warnings) {
  std::vector<std::pair<PodTimeline*, const GangRankTimes*>> matches;
  std::map<std::string, std::vector<PodTimeline*>> by_name, by_node;
  for (auto& p : job.pods) by_name[p.pod.name].push_back(&p), by_node[p.pod.node].push_back(&p);
  for (const auto& rank : gang.ranks) {
    PodTimeline* hit = nullptr;
    if (auto it = by_name.find(rank.host); it != by_name.end()) {
      for (PodTimeline* p : it->second)
        if (!released(p->pod)) hit = p;
      if (!hit) hit = it->second.front();
    } else if (auto on = by_node.find(rank.host); on != by_node.end() && on->second.size() == 1) {
      hit = on->second.front();
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
  for (auto& [pod, rank] : matches) {
    pod->rank = rank->rank;
    pod->rank_ready = shift(rank->ready);
    pod->rank_joined = shift(rank->joined);
    pod->first_step = shift(rank->first_step);
  }
  if (matches.size() < gang.ranks.size())
    warnings.push_back(fmt::format("{}: {} of {} ranks matched a pod of {} by pod name or node", gang.file, matches.size(),
                                   gang.ranks.size(), job.group));
}

// Which jobs an event is about: one of their pods, their group, or their job (labels, ownerReferences).
class EventRouter {
 public:
  explicit EventRouter(std::map<Key, JobTimeline>& jobs) {
    for (auto& [key, job] : jobs) {
      add(by_object_, {job.ns, job.group}, &job);
      for (const auto& p : job.pods) {
        add(by_pod_, {job.ns, p.pod.name}, &job);
        for (const auto& n : p.pod.job_names) add(by_object_, {job.ns, n}, &job);
      }
    }
  }
  std::vector<JobTimeline*> route(const EventRecord& e) const {
    const auto& index = e.kind == "Pod" ? by_pod_ : by_object_;
    if (!e.ns.empty()) {
      auto it = index.find({e.ns, e.object});
      return it == index.end() ? std::vector<JobTimeline*>{} : it->second;
    }
    std::vector<JobTimeline*> out;  // no namespace: the object of that name in any namespace
    for (const auto& [key, jobs] : index)
      if (key.second == e.object) out.insert(out.end(), jobs.begin(), jobs.end());
    return out;
  }

 private:
  static void add(std::map<Key, std::vector<JobTimeline*>>& index, const Key& key, JobTimeline* job) {
    auto& v = index[key];
    if (std::find(v.begin(), v.end(), job) == v.end()) v.push_back(job);
  }
  std::map<Key, std::vector<JobTimeline*>> by_pod_, by_object_;
};

void collect_events(std::map<Key, JobTimeline>& jobs, const ClusterRecords& records) {
  EventRouter router(jobs);
  for (const auto& e : records.events)
    for (JobTimeline* job : router.route(e)) job->events.push_back(e);
  for (auto& [key, job] : jobs) {
    std::stable_sort(job.events.begin(), job.events.end(), [](const EventRecord& a, const EventRecord& b) { return a.first < b.first; });
    std::unordered_set<std::string> seen;
    for (const auto& e : job.events)
      if ((e.reason == "FailedScheduling" || e.reason.find("Unschedulable") != std::string::npos) && seen.insert(e.message).second)
        job.failed_scheduling_reasons.push_back(e.message);
  }
}

std::map<Key, JobTimeline> group_jobs(const ClusterRecords& records) {
  std::map<Key, JobTimeline> jobs;
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
  return jobs;
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

  std::map<Key, JobTimeline> jobs = group_jobs(records);
  if (!options.only_group.empty())
    for (auto it = jobs.begin(); it != jobs.end();) it = it->second.group == options.only_group ? std::next(it) : jobs.erase(it);
  collect_events(jobs, records);
  for (auto& [key, job] : jobs) {
    std::set<std::string> names, job_names;
    for (const auto& p : job.pods) {
      names.insert(p.pod.name);
      job_names.insert(p.pod.job_names.begin(), p.pod.job_names.end());
      if (!job.first_created || *p.pod.created < *job.first_created) job.first_created = p.pod.created;
    }
    detail::size_gang(job, records, job_names, names.size());
    std::sort(job.pods.begin(), job.pods.end(), [](const PodTimeline& a, const PodTimeline& b) {
      return a.pod.name != b.pod.name ? a.pod.name < b.pod.name : *a.pod.created < *b.pod.created;
    });
    if (gang) match_gang(job, *gang, options, report.warnings);
    for (const auto& p : job.pods) job.restarts += p.pod.restarts;
    job.recreated = static_cast<int>(job.pods.size() - names.size());
    detail::derive_attempts(job, until, gang != nullptr);
    report.warnings.insert(report.warnings.end(), job.warnings.begin(), job.warnings.end());
    report.jobs.push_back(std::move(job));
  }
  if (!options.only_group.empty() && report.jobs.empty())
    report.warnings.push_back(fmt::format("no pods or PodGroup of group '{}' in the snapshots", options.only_group));
  return report;
}

}  // namespace placebench::harness::admission
