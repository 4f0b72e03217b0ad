// Records of one snapshot folded into those of earlier snapshots: a pod by uid (the first time each condition
// was seen is kept), an event by key (repeats widen its span and count), a PodGroup by namespace and name
// (phase changes), a Workload by name (the first time each condition was True). Identities that cannot be
// one object are refused (docs/admission.md, "Bad and partial snapshots"): two pods of one uid in one file,
// or of one uid with different names; two PodGroups of one name in one snapshot.
#include <fmt/format.h>

#include <algorithm>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {
namespace {

template <typename T>
T* find_by(std::vector<T>& v, const std::string& ns, const std::string& name) {
  for (auto& x : v)
    if (x.ns == ns && x.name == name) return &x;
  return nullptr;
}

void keep_first(Time& o, const Time& n) {
  if (n && (!o || *n < *o)) o = n;
}

void fold_into(PodRecord& p, const PodRecord& old) {
  keep_first(p.scheduled, old.scheduled);
  keep_first(p.initialized, old.initialized);
  keep_first(p.containers_ready, old.containers_ready);
  keep_first(p.ready, old.ready);  // the first time it was ready
  keep_first(p.started, old.started);
  keep_first(p.deleted, old.deleted);
  if (old.last_ready && (!p.last_ready || *old.last_ready > *p.last_ready)) p.last_ready = old.last_ready;
  if (old.failed && (!p.failed || *old.failed <= *p.failed)) {
    p.failed = old.failed;
    p.failed_reason = old.failed_reason;
  }
  p.restarts = std::max(p.restarts, old.restarts);
  for (const auto& w : old.waiting_reasons)
    if (std::find(p.waiting_reasons.begin(), p.waiting_reasons.end(), w) == p.waiting_reasons.end()) p.waiting_reasons.push_back(w);
  if (p.gpus == 0) p.gpus = old.gpus;
}

}  // namespace

void merge_pod(ClusterRecords& records, PodRecord p, double time, const ObjectReader& r, const std::string& file) {
  p.last_seen = time;
  auto [it, fresh] = records.pod_by_uid.try_emplace(p.uid, ClusterRecords::PodSeen{records.pods.size(), file, r.where()});
  if (fresh) {
    records.pods.push_back(std::move(p));
    return;
  }
  PodRecord& old = records.pods[it->second.index];
  if (old.ns != p.ns || old.name != p.name)
    r.fail(fmt::format("metadata.uid '{}' is also the uid of pod {}/{} ({}: {}); a uid names one pod: give snapshots of one "
                       "cluster as kubectl printed them", p.uid, old.ns, old.name, it->second.file, it->second.where));
  if (it->second.file == file)
    r.fail(fmt::format("pod {}/{} is listed twice in this file (also {}); remove the duplicate item", p.ns, p.name, it->second.where));
  it->second.file = file;
  it->second.where = r.where();
  fold_into(p, old);
  old = std::move(p);
}

void merge_event(ClusterRecords& records, EventRecord e) {
  auto [it, fresh] = records.event_by_key.try_emplace(e.key, records.events.size());
  if (fresh) {
    records.events.push_back(std::move(e));
    return;
  }
  EventRecord& old = records.events[it->second];
  old.first = std::min(old.first, e.first);
  old.last = std::max(old.last, e.last);
  old.count = std::max(old.count, e.count);
}

void merge_podgroup(ClusterRecords& records, PodGroupRecord g, const ObjectReader& r) {
  PodGroupRecord* old = find_by(records.podgroups, g.ns, g.name);
  if (!old) {
    g.where = r.where();
    records.podgroups.push_back(std::move(g));
    return;
  }
  if (old->last_seen == g.last_seen)
    r.fail(fmt::format("a second PodGroup {}/{} in the snapshot of {} (first: {}); a namespace holds one PodGroup of a name: "
                       "give one `kubectl get podgroups` listing per snapshot", g.ns, g.name, format_rfc3339(g.last_seen), old->where));
  if (old->api != g.api)
    r.fail(fmt::format("PodGroup {}/{} is {} here but {} in an earlier snapshot ({}); give the snapshots of one scheduler", g.ns,
                       g.name, g.api, old->api, old->where));
  old->last_seen = g.last_seen;
  if (g.min_member) old->min_member = g.min_member;
  for (const auto& ch : g.phases)
    if (old->phases.empty() || old->phases.back().phase != ch.phase) old->phases.push_back(ch);
}

void merge_owner(ClusterRecords& records, OwnerRecord o) {
  for (auto& old : records.owners)
    if (old.ns == o.ns && old.kind == o.kind && old.name == o.name) {
      old = std::move(o);  // the latest spec (a job scaled between snapshots)
      return;
    }
  records.owners.push_back(std::move(o));
}

void merge_workload(ClusterRecords& records, WorkloadRecord w) {
  WorkloadRecord* old = find_by(records.workloads, w.ns, w.name);
  if (!old) {
    records.workloads.push_back(std::move(w));
    return;
  }
  if (w.pods) old->pods = w.pods;
  for (const auto& [type, t] : w.first_true)
    if (!old->first_true.count(type) || t < old->first_true[type]) old->first_true[type] = t;
  for (const auto& ch : w.changes)
    if (std::none_of(old->changes.begin(), old->changes.end(), [&](const PhaseChange& c) { return c.time == ch.time && c.phase == ch.phase; }))
      old->changes.push_back(ch);
  for (const auto& n : w.owners)
    if (std::find(old->owners.begin(), old->owners.end(), n) == old->owners.end()) old->owners.push_back(n);
}

}  // namespace placebench::harness::admission::k8s
