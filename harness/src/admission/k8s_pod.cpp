// A Pod object read into a PodRecord: identity, gang and job keys, GPU resources, conditions and container
// statuses (docs/admission.md, "What is read").
#include <fmt/format.h>

#include <algorithm>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {
namespace {

// Pod-to-group keys each scheduler uses: Volcano's annotations, scheduler-plugins' label (and its older one),
// Kueue's pod-group label; in that order.
struct GroupKey {
  const char* where;  // "annotations" or "labels"
  const char* key;
  const char* source;
};
const GroupKey kGroupKeys[] = {{"annotations", "scheduling.k8s.io/group-name", "volcano"},
                               {"annotations", "scheduling.volcano.sh/group-name", "volcano"},
                               {"labels", "scheduling.x-k8s.io/pod-group", "scheduler-plugins"},
                               {"labels", "pod-group.scheduling.sigs.k8s.io", "scheduler-plugins"},
                               {"labels", "kueue.x-k8s.io/pod-group-name", "kueue"}};
// The job a pod belongs to; a JobSet's pods name their JobSet first (its child Jobs are parts of one gang).
const char* const kJobLabels[] = {"jobset.sigs.k8s.io/jobset-name", "volcano.sh/job-name", "batch.kubernetes.io/job-name",
                                  "job-name", "training.kubeflow.org/job-name"};

// Clocks of the API server, the scheduler and the kubelet differ a little: an order violation this small is
// taken as simultaneous (warned), a larger one is refused (docs/admission.md, "Bad and partial snapshots").
constexpr double kClockSkewToleranceS = 5;

// A container's amount of `resource`: limits (extended resources: requests must equal limits, limits alone
// imply requests), else requests.
double container_amount(const ObjectReader& r, const json& c, const char* resource, std::size_t i) {
  for (const char* kind : {"limits", "requests"})
    if (const json* q = r.at({"resources", kind, resource}, &c))
      return r.quantity(*q, fmt::format("spec.containers[{}].resources.{}[{}]", i, kind, resource));
  return 0;
}

void read_resources(const ObjectReader& r, PodRecord& p) {
  const json* containers = r.at({"spec", "containers"});
  if (!containers) return;
  if (!containers->is_array()) r.fail("spec.containers is not a list");
  for (std::size_t i = 0; i < containers->size(); ++i) {
    const json& c = (*containers)[i];
    p.gpus += container_amount(r, c, "nvidia.com/gpu", i);
    p.gpumem_mib += container_amount(r, c, "nvidia.com/gpumem", i);
    p.gpumem_pct += container_amount(r, c, "nvidia.com/gpumem-percentage", i);
    p.gpucores_pct += container_amount(r, c, "nvidia.com/gpucores", i);
  }
}

// A container that ended with a non-zero exit code (now, or before its last restart: lastState, as an
// OOMKilled worker restarted in place shows) is the pod's failure; the earliest is kept.
void read_termination(const ObjectReader& r, const json& status, const char* state, const std::string& at, PodRecord& p) {
  const json* term = r.at({state, "terminated"}, &status);
  if (!term) return;
  const json* code = r.at({"exitCode"}, term);
  if (!code || !code->is_number_integer() || code->get<long long>() == 0) return;
  const std::string field = fmt::format("{}.{}.terminated", at, state);
  Time finished = r.time({"finishedAt"}, field + ".finishedAt", term);
  if (!finished || (p.failed && *p.failed <= *finished)) return;
  p.failed = finished;
  std::string why = r.text({"reason"}, term, field + ".reason");
  p.failed_reason = fmt::format("{} exit code {}", why.empty() ? "container" : why, code->get<long long>());
}

void read_container_statuses(const ObjectReader& r, PodRecord& p) {
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const json* statuses = r.at({"status", list});
    if (!statuses) continue;
    if (!statuses->is_array()) r.fail(fmt::format("status.{} is not a list", list));
    for (std::size_t i = 0; i < statuses->size(); ++i) {
      const json& s = (*statuses)[i];
      const std::string at = fmt::format("status.{}[{}]", list, i);
      if (const json* rc = r.at({"restartCount"}, &s)) {
        if (!rc->is_number_integer()) r.fail(at + ".restartCount is not a whole number");
        if (std::string(list) == "containerStatuses") p.restarts += rc->get<int>();
      }
      std::string reason = r.text({"state", "waiting", "reason"}, &s, at + ".state.waiting.reason");
      if (!reason.empty() && std::find(p.waiting_reasons.begin(), p.waiting_reasons.end(), reason) == p.waiting_reasons.end())
        p.waiting_reasons.push_back(reason);
      for (const char* state : {"running", "terminated"}) {
        Time started = r.time({"state", state, "startedAt"}, at + ".state." + state + ".startedAt", &s);
        if (started && std::string(list) == "containerStatuses" && (!p.started || *started < *p.started)) p.started = started;
      }
      for (const char* state : {"state", "lastState"}) read_termination(r, s, state, at, p);
    }
  }
}

void read_group(const ObjectReader& r, PodRecord& p) {
  for (const auto& k : kGroupKeys)
    if (p.group.empty()) {
      p.group = r.text({"metadata", k.where, k.key}, nullptr, fmt::format("metadata.{}[{}]", k.where, k.key));
      if (!p.group.empty()) p.group_source = k.source;
    }
  // LeaderWorkerSet: each group of a set (leader and workers) is one gang.
  std::string lws = r.text({"metadata", "labels", "leaderworkerset.sigs.k8s.io/name"});
  std::string lws_index = r.text({"metadata", "labels", "leaderworkerset.sigs.k8s.io/group-index"});
  if (p.group.empty() && !lws.empty()) {
    p.group = lws_index.empty() ? lws : lws + "-" + lws_index;
    p.group_source = "lws";
  }
  for (const char* key : kJobLabels)
    if (std::string j = r.text({"metadata", "labels", key}); !j.empty()) p.job_names.push_back(j);
  if (!lws.empty()) p.job_names.push_back(lws);
  if (const json* owners = r.at({"metadata", "ownerReferences"}); owners && owners->is_array())
    for (const json& o : *owners)
      if (std::string n = r.text({"name"}, &o); !n.empty()) p.job_names.push_back(n);
  for (const char* key : {"kueue.x-k8s.io/pod-group-total-count", "leaderworkerset.sigs.k8s.io/size"}) {
    const std::string text = r.text({"metadata", "annotations", key});
    if (text.empty() || p.group_total_count) continue;
    if (text.size() > 7 || text.find_first_not_of("0123456789") != std::string::npos || std::stoi(text) < 1)
      r.fail(fmt::format("metadata.annotations[{}] '{}' is not a pod count from 1 to 9999999", key, text.substr(0, 40)));
    p.group_total_count = std::stoi(text);
  }
}

// `later` must not be before `earlier` (beyond the clocks' tolerance, when it is taken as `earlier`).
void check_order(const ObjectReader& r, Time& later, const char* later_name, const Time& earlier, const char* earlier_name,
                 std::vector<std::string>& warnings) {
  if (!later || !earlier || *later >= *earlier) return;
  const double by = *earlier - *later;
  if (by > kClockSkewToleranceS)
    r.fail(fmt::format("{} {} is {:.0f} s before {} {}: a pod cannot do that; give the snapshot as kubectl printed it",
                       later_name, format_rfc3339(*later), by, earlier_name, format_rfc3339(*earlier)));
  warnings.push_back(fmt::format("{}: {} is {:.0f} s before {} (clock skew up to {:.0f} s): taken as {}", r.where(), later_name, by,
                                 earlier_name, kClockSkewToleranceS, earlier_name));
  later = earlier;
}

void check_times(const ObjectReader& r, PodRecord& p, std::vector<std::string>& warnings) {
  check_order(r, p.scheduled, "PodScheduled", p.created, "metadata.creationTimestamp", warnings);
  for (auto [t, name] : {std::pair<Time*, const char*>{&p.initialized, "Initialized"}, {&p.containers_ready, "ContainersReady"},
                        {&p.ready, "Ready"}, {&p.started, "the container start"}}) {
    check_order(r, *t, name, p.created, "metadata.creationTimestamp", warnings);
    check_order(r, *t, name, p.scheduled, "PodScheduled", warnings);
  }
  if (p.last_ready && p.ready && *p.last_ready < *p.ready) p.last_ready = p.ready;
}

}  // namespace

PodRecord read_pod(const ObjectReader& r, std::vector<std::string>& warnings) {
  PodRecord p;
  p.name = r.name();
  p.ns = r.text({"metadata", "namespace"});
  p.uid = r.text({"metadata", "uid"});
  if (p.uid.empty()) p.uid = p.ns + "/" + p.name;
  p.created = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (!p.created) r.fail("metadata.creationTimestamp is missing");
  p.deleted = r.time({"metadata", "deletionTimestamp"}, "metadata.deletionTimestamp");
  read_group(r, p);
  p.node = r.text({"spec", "nodeName"});
  p.phase = r.text({"status", "phase"});
  read_resources(r, p);
  if (const json* conds = r.at({"status", "conditions"})) {
    if (!conds->is_array()) r.fail("status.conditions is not a list");
    for (std::size_t i = 0; i < conds->size(); ++i) {
      const json& c = (*conds)[i];
      const std::string at = fmt::format("status.conditions[{}]", i);
      std::string type = r.text({"type"}, &c, at + ".type"), status = r.text({"status"}, &c, at + ".status");
      Time t = r.time({"lastTransitionTime"}, at + ".lastTransitionTime", &c);
      if (status != "True") continue;
      if (!t) r.fail(at + " (" + type + " True) has no lastTransitionTime");
      if (type == "PodScheduled") p.scheduled = t;
      else if (type == "Initialized") p.initialized = t;
      else if (type == "ContainersReady") p.containers_ready = t;
      else if (type == "Ready") p.ready = p.last_ready = t;
    }
  }
  read_container_statuses(r, p);
  if (p.phase == "Failed" && !p.failed) {
    p.failed = r.time({"status", "startTime"}, "status.startTime");
    p.failed_reason = "pod Failed: " + r.text({"status", "reason"});
  }
  check_times(r, p, warnings);
  return p;
}

}  // namespace placebench::harness::admission::k8s
