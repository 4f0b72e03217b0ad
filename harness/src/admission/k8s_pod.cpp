// A Pod object read into a PodRecord: identity, gang and job keys, GPU resources, conditions and container
// statuses (docs/admission.md, "What is read").
#include <fmt/format.h>

#include <algorithm>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {
namespace {

// Pod-to-group keys each scheduler uses: Volcano's annotations, scheduler-plugins' label (and its older one).
const char* const kGroupAnnotations[] = {"scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name"};
const char* const kGroupLabels[] = {"scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io"};
const char* const kJobLabels[] = {"volcano.sh/job-name", "batch.kubernetes.io/job-name", "job-name",
                                  "training.kubeflow.org/job-name"};

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
      if (const json* term = r.at({"state", "terminated"}, &s)) {
        const json* code = r.at({"exitCode"}, term);
        if (code && code->is_number_integer() && code->get<int>() != 0) {
          Time finished = r.time({"finishedAt"}, at + ".state.terminated.finishedAt", term);
          if (finished && (!p.failed || *finished < *p.failed)) {
            p.failed = finished;
            std::string why = r.text({"reason"}, term, at + ".state.terminated.reason");
            p.failed_reason = fmt::format("{} exit code {}", why.empty() ? "container" : why, code->get<int>());
          }
        }
      }
    }
  }
}

}  // namespace

PodRecord read_pod(const ObjectReader& r) {
  PodRecord p;
  p.name = r.name();
  p.ns = r.text({"metadata", "namespace"});
  p.uid = r.text({"metadata", "uid"});
  if (p.uid.empty()) p.uid = p.ns + "/" + p.name;
  p.created = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (!p.created) r.fail("metadata.creationTimestamp is missing");
  p.deleted = r.time({"metadata", "deletionTimestamp"}, "metadata.deletionTimestamp");
  for (const char* key : kGroupAnnotations)
    if (p.group.empty()) p.group = r.text({"metadata", "annotations", key});
  for (const char* key : kGroupLabels)
    if (p.group.empty()) p.group = r.text({"metadata", "labels", key});
  for (const char* key : kJobLabels)
    if (std::string j = r.text({"metadata", "labels", key}); !j.empty()) p.job_names.push_back(j);
  if (const json* owners = r.at({"metadata", "ownerReferences"}); owners && owners->is_array())
    for (const json& o : *owners)
      if (std::string n = r.text({"name"}, &o); !n.empty()) p.job_names.push_back(n);
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
      else if (type == "Ready") p.ready = t;
    }
  }
  read_container_statuses(r, p);
  if (p.phase == "Failed" && !p.failed) {
    p.failed = r.time({"status", "startTime"}, "status.startTime");
    p.failed_reason = "pod Failed: " + r.text({"status", "reason"});
  }
  return p;
}

}  // namespace placebench::harness::admission::k8s
