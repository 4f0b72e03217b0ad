// The objects that say how many pods a gang job runs: the workload controllers' own objects (Volcano Job,
// Kubeflow MPIJob and PyTorchJob, JobSet, LeaderWorkerSet) and Kueue's Workload, the admission record of a
// job or pod group (docs/admission.md, "Gang size").
#include <fmt/format.h>

#include <algorithm>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {
namespace {

constexpr long long kMaxPods = 1'000'000;

// A count field: a whole number from 0 to a million, `fallback` when absent (the API's default).
int count_at(const ObjectReader& r, const json& from, std::initializer_list<const char*> path, const std::string& name, int fallback) {
  const json* c = r.at(path, &from);
  if (!c) return fallback;
  if (!c->is_number_integer() || c->get<long long>() < 0 || c->get<long long>() > kMaxPods)
    r.fail(fmt::format("{} is not a whole number from 0 to {}", name, kMaxPods));
  return c->get<int>();
}

// Sum of `replicas` over a map of replica specs (MPIJob's mpiReplicaSpecs, PyTorchJob's pytorchReplicaSpecs).
int replica_map_sum(const ObjectReader& r, const char* field) {
  const json* specs = r.at({"spec", field});
  if (!specs) r.fail(fmt::format("spec.{} is missing", field));
  if (!specs->is_object()) r.fail(fmt::format("spec.{} is not a map of replica specs", field));
  long long n = 0;
  for (const auto& [role, spec] : specs->items())
    n += count_at(r, spec, {"replicas"}, fmt::format("spec.{}.{}.replicas", field, role), 1);
  return static_cast<int>(std::min(n, kMaxPods));
}

// Sum over a list (Volcano's spec.tasks[], JobSet's spec.replicatedJobs[]) of replicas x `per` pods.
int replica_list_sum(const ObjectReader& r, const char* field, bool jobset) {
  const json* list = r.at({"spec", field});
  if (!list) r.fail(fmt::format("spec.{} is missing", field));
  if (!list->is_array()) r.fail(fmt::format("spec.{} is not a list", field));
  long long n = 0;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& t = (*list)[i];
    const std::string at = fmt::format("spec.{}[{}]", field, i);
    long long replicas = count_at(r, t, {"replicas"}, at + ".replicas", jobset ? 1 : 0);
    long long per = jobset ? count_at(r, t, {"template", "spec", "parallelism"}, at + ".template.spec.parallelism", 1) : 1;
    n = std::min(n + replicas * per, kMaxPods);
  }
  return static_cast<int>(n);
}

}  // namespace

bool is_owner_kind(const std::string& kind, const std::string& api) {
  if (kind == "Job") return api.rfind("batch.volcano.sh/", 0) == 0;
  return kind == "MPIJob" || kind == "PyTorchJob" || kind == "JobSet" || kind == "LeaderWorkerSet";
}

OwnerRecord read_owner(const ObjectReader& r, const std::string& kind) {
  OwnerRecord o;
  o.name = r.name();
  o.ns = r.text({"metadata", "namespace"});
  o.kind = kind;
  if (kind == "Job") {
    o.pods = replica_list_sum(r, "tasks", false);
    if (r.at({"spec", "minAvailable"})) o.min_available = count_at(r, r.item(), {"spec", "minAvailable"}, "spec.minAvailable", 0);
  } else if (kind == "MPIJob") {
    o.pods = replica_map_sum(r, "mpiReplicaSpecs");
  } else if (kind == "PyTorchJob") {
    o.pods = replica_map_sum(r, "pytorchReplicaSpecs");
  } else if (kind == "JobSet") {
    o.pods = replica_list_sum(r, "replicatedJobs", true);
  } else {  // LeaderWorkerSet: one gang per group of `size` pods (a leader and size-1 workers)
    o.pods = count_at(r, r.item(), {"spec", "leaderWorkerTemplate", "size"}, "spec.leaderWorkerTemplate.size", 1);
  }
  return o;
}

WorkloadRecord read_workload(const ObjectReader& r) {
  WorkloadRecord w;
  w.name = r.name();
  w.ns = r.text({"metadata", "namespace"});
  if (const json* owners = r.at({"metadata", "ownerReferences"}); owners && owners->is_array())
    for (const json& o : *owners)
      if (std::string n = r.text({"name"}, &o, "metadata.ownerReferences[].name"); !n.empty()) w.owners.push_back(n);
  if (const json* sets = r.at({"spec", "podSets"})) {
    if (!sets->is_array()) r.fail("spec.podSets is not a list");
    long long n = 0;
    for (std::size_t i = 0; i < sets->size(); ++i)
      n = std::min(n + count_at(r, (*sets)[i], {"count"}, fmt::format("spec.podSets[{}].count", i), 1), kMaxPods);
    w.pods = static_cast<int>(n);
  }
  const json* conds = r.at({"status", "conditions"});
  if (!conds) return w;
  if (!conds->is_array()) r.fail("status.conditions is not a list");
  for (std::size_t i = 0; i < conds->size(); ++i) {
    const json& c = (*conds)[i];
    const std::string at = fmt::format("status.conditions[{}]", i);
    const std::string type = r.text({"type"}, &c, at + ".type");
    Time t = r.time({"lastTransitionTime"}, at + ".lastTransitionTime", &c);
    if (r.text({"status"}, &c, at + ".status") != "True") continue;
    if (!t) r.fail(at + " (" + type + " True) has no lastTransitionTime");
    std::string reason = r.text({"reason"}, &c, at + ".reason");
    w.first_true[type] = *t;
    w.changes.push_back({*t, reason.empty() || reason == type ? type : type + " (" + reason + ")", "Workload " + w.name});
  }
  return w;
}

}  // namespace placebench::harness::admission::k8s
