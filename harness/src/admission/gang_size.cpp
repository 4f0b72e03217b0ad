// How many pods a gang job runs and how many its scheduler waits for (docs/admission.md, "Gang size").
// The pod count: the controller's object (Volcano Job, MPIJob, PyTorchJob, JobSet, LeaderWorkerSet), else the
// Kueue Workload's podSets, else the pods' total-count annotation (Kueue, LeaderWorkerSet), else the distinct
// pod names seen. The minimum: the PodGroup's minMember, else the Volcano Job's minAvailable, else the
// Kueue pod group's total count, else the pod count. A minimum below the pod count is flagged: the scheduler
// binds a partial gang, and its GPUs wait for the rest (stranded) whatever the minimum says.
#include <fmt/format.h>

#include <algorithm>

#include "timeline_parts.h"

namespace placebench::harness::admission::detail {
namespace {

const OwnerRecord* owner_of(const JobTimeline& job, const ClusterRecords& records, const std::set<std::string>& job_names) {
  for (const auto& o : records.owners)
    if (o.ns == job.ns && (o.name == job.group || job_names.count(o.name))) return &o;
  return nullptr;
}

void take_workload(JobTimeline& job, const ClusterRecords& records, const std::set<std::string>& names) {
  for (const auto& w : records.workloads) {
    if (w.ns != job.ns) continue;
    bool mine = w.name == job.group;
    for (const auto& o : w.owners) mine = mine || names.count(o) || o == job.group;
    if (!mine) continue;
    job.workload = w.name;
    job.workload_conditions = w.changes;
    std::sort(job.workload_conditions.begin(), job.workload_conditions.end(),
              [](const PhaseChange& a, const PhaseChange& b) { return a.time < b.time; });
    if (w.pods > 0 && job.pod_count_source.empty()) {
      job.pod_count = w.pods;
      job.pod_count_source = "Workload " + w.name;
    }
    return;
  }
}

}  // namespace

void size_gang(JobTimeline& job, const ClusterRecords& records, const std::set<std::string>& job_names, std::size_t names_seen) {
  std::set<std::string> names = job_names;
  for (const auto& p : job.pods) names.insert(p.pod.name);
  const OwnerRecord* owner = owner_of(job, records, job_names);
  if (owner) {
    job.pod_count = owner->pods;
    job.pod_count_source = owner->kind + " " + owner->name;
  }
  take_workload(job, records, names);
  std::optional<int> total;
  bool kueue = !job.workload.empty();
  for (const auto& p : job.pods) {
    if (p.pod.group_total_count && (!total || *p.pod.group_total_count > *total)) total = p.pod.group_total_count;
    kueue = kueue || p.pod.group_source == "kueue";
  }
  if (job.pod_count_source.empty() && total) {
    job.pod_count = *total;
    job.pod_count_source = "pod annotation total count";
  }
  if (job.pod_count_source.empty()) {
    job.pod_count = static_cast<int>(names_seen);
    job.pod_count_source = "pods seen";
  }
  job.scheduler = kueue ? "kueue" : "none";
  for (const auto& g : records.podgroups) {
    if (g.ns != job.ns || g.name != job.group) continue;
    job.scheduler = g.api.find("volcano") != std::string::npos ? "volcano" : "scheduler-plugins";
    job.podgroup_phases = g.phases;
    if (g.min_member > 0) {
      job.min_member = g.min_member;
      job.min_member_source = "podgroup";
    }
    if (g.created && (!job.first_created || *g.created < *job.first_created)) job.first_created = g.created;
  }
  if (!job.min_member && owner && owner->min_available && *owner->min_available > 0) {
    job.min_member = *owner->min_available;
    job.min_member_source = "job minAvailable";
  }
  if (!job.min_member && kueue && total) {  // a Kueue pod group is admitted whole: its total count
    job.min_member = *total;
    job.min_member_source = "kueue total count";
  }
  if (job.pod_count_source == "pods seen" && job.min_member > job.pod_count) job.pod_count = job.min_member;  // not all created yet
  if (!job.min_member) {
    job.min_member = job.pod_count;
    job.min_member_source = job.pod_count_source;
  }
  if (job.min_member < job.pod_count)
    job.warnings.push_back(fmt::format("{}/{}: the gang's minimum {} ({}) is below the job's {} pods ({}): the scheduler may bind a "
                                       "partial gang; its GPUs count as stranded until all {} are bound",
                                       job.ns, job.group, job.min_member, job.min_member_source, job.pod_count, job.pod_count_source,
                                       job.pod_count));
  else if (job.min_member > job.pod_count && job.pod_count_source != "pods seen")
    job.warnings.push_back(fmt::format("{}/{}: the gang's minimum {} ({}) is above the job's {} pods ({}): it can never be admitted",
                                       job.ns, job.group, job.min_member, job.min_member_source, job.pod_count, job.pod_count_source));
}

}  // namespace placebench::harness::admission::detail
