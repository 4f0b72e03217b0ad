// The queue replay's placement rules (queue_placement.h, docs/queue-replay.md).
#include "queue_placement.h"

#include <algorithm>

namespace placebench::harness::decisions::detail {

int host_free_gpus(const Host& h) {
  int n = 0;
  for (const auto& k : h) n += k.free_gpus;
  return n;
}
namespace {

int host_free_cpus(const Host& h) {
  int n = 0;
  for (const auto& k : h) n += k.free_cpus;
  return n;
}

// Is `a` a better choice than `b` (free GPUs of each): binpack takes the fullest, spread the emptiest.
bool better(int a, int b, GpuChoice choice) { return choice == GpuChoice::kBinpack ? a < b : a > b; }

// A local placement: the worker's GPUs and CPUs all on one NUMA node.
std::optional<WorkerPlacement> place_local(const State& s, const WorkloadClass& w, GpuChoice choice) {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  for (std::size_t h = 0; h < s.size(); ++h)
    for (std::size_t k = 0; k < s[h].size(); ++k) {
      const Numa& n = s[h][k];
      if (n.free_gpus < w.gpus_per_worker || n.free_cpus < w.cpus_per_worker) continue;
      if (!best) {
        best = {h, k};
        continue;
      }
      int hf = host_free_gpus(s[h]), bf = host_free_gpus(s[best->first]);
      if (better(hf, bf, choice) || (hf == bf && better(n.free_gpus, s[best->first][best->second].free_gpus, choice))) best = {h, k};
    }
  if (!best) return std::nullopt;
  WorkerPlacement p{best->first, std::vector<Numa>(s[best->first].size()), true};
  p.taken[best->second] = {w.gpus_per_worker, w.cpus_per_worker};
  return p;
}

// A placement blind to locality: any host with enough GPUs and CPUs; GPUs in device order (binpack) or
// round-robin over the NUMA nodes with the most free (spread); CPUs the same way.
std::optional<WorkerPlacement> place_any(const State& s, const WorkloadClass& w, GpuChoice choice) {
  std::optional<std::size_t> best;
  for (std::size_t h = 0; h < s.size(); ++h) {
    if (host_free_gpus(s[h]) < w.gpus_per_worker || host_free_cpus(s[h]) < w.cpus_per_worker) continue;
    if (!best || better(host_free_gpus(s[h]), host_free_gpus(s[*best]), choice)) best = h;
  }
  if (!best) return std::nullopt;
  const Host& host = s[*best];
  WorkerPlacement p{*best, std::vector<Numa>(host.size()), true};
  auto take = [&](int need, int Numa::*field) {
    std::vector<int> left(host.size());
    for (std::size_t k = 0; k < host.size(); ++k) left[k] = host[k].*field;
    while (need > 0) {
      std::size_t pick = host.size();
      for (std::size_t k = 0; k < host.size(); ++k) {
        if (left[k] == 0) continue;
        if (choice == GpuChoice::kBinpack) {
          pick = k;  // device order: the first node with any left
          break;
        }
        if (pick == host.size() || left[k] > left[pick]) pick = k;
      }
      int n = choice == GpuChoice::kBinpack ? std::min(need, left[pick]) : 1;
      left[pick] -= n;
      p.taken[pick].*field += n;
      need -= n;
    }
  };
  take(w.gpus_per_worker, &Numa::free_gpus);
  take(w.cpus_per_worker, &Numa::free_cpus);
  int nodes_used = 0;
  for (const auto& t : p.taken)
    if (t.free_gpus > 0 || t.free_cpus > 0) ++nodes_used;
  p.local = nodes_used <= 1;
  return p;
}

}  // namespace

std::optional<WorkerPlacement> place(const State& s, const WorkloadClass& w, const Combination& c) {
  if (c.locality == Policy::kStrict) return place_local(s, w, c.choice);
  if (c.locality == Policy::kPrefer)
    if (auto p = place_local(s, w, c.choice)) return p;
  return place_any(s, w, c.choice);
}

void apply(State& s, const WorkerPlacement& p, int sign) {
  for (std::size_t k = 0; k < p.taken.size(); ++k) {
    s[p.host][k].free_gpus -= sign * p.taken[k].free_gpus;
    s[p.host][k].free_cpus -= sign * p.taken[k].free_cpus;
  }
}


}  // namespace placebench::harness::decisions::detail
