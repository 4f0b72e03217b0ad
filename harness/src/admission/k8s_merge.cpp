// Records of one snapshot folded into those of earlier snapshots: a pod by uid (the first time each condition
// was seen is kept), an event by key (repeats widen its span and count), a PodGroup by name (phase changes).
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

}  // namespace

void merge_pod(ClusterRecords& records, PodRecord p, double time) {
  p.last_seen = time;
  for (auto& old : records.pods) {
    if (old.uid != p.uid) continue;
    auto keep_first = [](Time& o, const Time& n) {
      if (!o) o = n;
    };
    keep_first(p.scheduled, old.scheduled);
    keep_first(p.initialized, old.initialized);
    keep_first(p.containers_ready, old.containers_ready);
    keep_first(p.ready, old.ready);
    keep_first(p.started, old.started);
    keep_first(p.deleted, old.deleted);
    if (old.failed && (!p.failed || *old.failed <= *p.failed)) {
      p.failed = old.failed;
      p.failed_reason = old.failed_reason;
    }
    if (old.ready && p.ready && *old.ready < *p.ready) p.ready = old.ready;  // the first time it was ready
    p.restarts = std::max(p.restarts, old.restarts);
    for (const auto& w : old.waiting_reasons)
      if (std::find(p.waiting_reasons.begin(), p.waiting_reasons.end(), w) == p.waiting_reasons.end()) p.waiting_reasons.push_back(w);
    if (p.gpus == 0) p.gpus = old.gpus;
    old = std::move(p);
    return;
  }
  records.pods.push_back(std::move(p));
}

void merge_event(ClusterRecords& records, EventRecord e) {
  for (auto& old : records.events)
    if (old.key == e.key) {
      old.first = std::min(old.first, e.first);
      old.last = std::max(old.last, e.last);
      old.count = std::max(old.count, e.count);
      return;
    }
  records.events.push_back(std::move(e));
}

void merge_podgroup(ClusterRecords& records, PodGroupRecord g) {
  PodGroupRecord* old = find_by(records.podgroups, g.ns, g.name);
  if (!old) {
    records.podgroups.push_back(std::move(g));
    return;
  }
  if (g.min_member) old->min_member = g.min_member;
  for (const auto& ch : g.phases)
    if (old->phases.empty() || old->phases.back().phase != ch.phase) old->phases.push_back(ch);
}

}  // namespace placebench::harness::admission::k8s
