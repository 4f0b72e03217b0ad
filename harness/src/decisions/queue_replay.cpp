// The queue replay: arrivals drawn once from the mix's seed (the same jobs for every combination), then an
// event loop (arrival, completion, scheduling pass in arrival order with backfill) per combination.
// Placement rules, the gang and no-gang modes and every figure: docs/queue-replay.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <queue>
#include <random>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/stats/quantile.h"

namespace placebench::harness::decisions {
namespace {

constexpr double kMaxReplayWork = 2e10;

struct Numa {
  int free_gpus = 0, free_cpus = 0;
};
using Host = std::vector<Numa>;
using State = std::vector<Host>;

struct WorkerPlacement {
  std::size_t host = 0;
  std::vector<Numa> taken;  // per NUMA node of the host
  bool local = true;
};

struct Job {
  std::size_t cls = 0;
  double arrival = 0;
  std::vector<WorkerPlacement> placed;
  std::vector<double> placed_at;
  std::optional<double> start, end;
  bool remote = false;
};

int host_free_gpus(const Host& h) {
  int n = 0;
  for (const auto& k : h) n += k.free_gpus;
  return n;
}
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

// One host's fragmentation now (Weng et al.): the expected free GPUs the typical worker cannot use there; a
// worker "fits" as the policy would place it (strict: on one NUMA node). The cluster's is the sum over hosts.
double host_fragmentation(const Host& host, const JobMix& mix, const Combination& c, const std::vector<TaskShape>& shapes) {
  std::vector<double> free_per_gpu(static_cast<std::size_t>(host_free_gpus(host)), 1.0);
  std::vector<bool> fits;
  State one{host};
  for (const auto& w : mix.classes) fits.push_back(static_cast<bool>(place(one, w, c)));
  return expected_fragment(free_per_gpu, shapes, fits);
}

std::vector<Job> draw_arrivals(const JobMix& mix) {
  std::mt19937_64 rng(mix.seed);
  std::vector<Job> jobs;
  for (std::size_t k = 0; k < mix.classes.size(); ++k) {
    const double rate_per_s = mix.classes[k].arrivals_per_hour / 3600;
    double t = 0;
    for (;;) {
      // Exponential gaps from 53 random bits (the same on every standard library, unlike std::exponential_distribution).
      double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      t += -std::log1p(-u) / rate_per_s;
      if (t >= mix.horizon_s) break;
      jobs.push_back({k, t, {}, {}, std::nullopt, std::nullopt, false});
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.arrival < b.arrival; });
  return jobs;
}

// Starts the head job of class k if it can start now (gang: all workers at once; no gang: as many workers as fit,
// held); returns whether it started. `touched` collects the hosts whose free capacity changed.
bool try_start(State& s, Job& j, const WorkloadClass& w, const Combination& c, double t, std::vector<bool>& touched) {
  if (c.gang) {
    State trial = s;
    std::vector<WorkerPlacement> ps;
    while (static_cast<int>(ps.size()) < w.workers) {
      auto p = place(trial, w, c);
      if (!p) return false;
      apply(trial, *p, +1);
      ps.push_back(*p);
    }
    s = std::move(trial);
    j.placed = std::move(ps);
    j.placed_at.assign(j.placed.size(), t);
  } else {
    while (static_cast<int>(j.placed.size()) < w.workers) {
      auto p = place(s, w, c);
      if (!p) break;
      apply(s, *p, +1);
      j.placed.push_back(*p);
      j.placed_at.push_back(t);
    }
  }
  for (const auto& p : j.placed) touched[p.host] = true;
  return static_cast<int>(j.placed.size()) == w.workers;
}

ReplayOutcome replay_one(const State& initial, const JobMix& mix, std::vector<Job> jobs, const Combination& c) {
  State s = initial;
  std::vector<TaskShape> shapes;
  for (const auto& w : mix.classes) shapes.push_back({static_cast<double>(w.gpus_per_worker), w.arrivals_per_hour});
  using Done = std::pair<double, std::size_t>;
  std::priority_queue<Done, std::vector<Done>, std::greater<>> running;
  // One FIFO per class: a pass takes the earliest-arrived head among the classes not yet blocked in it, which is
  // arrival order with backfill (a class that cannot start its head cannot start a later job of it this pass).
  std::vector<std::deque<std::size_t>> queues(mix.classes.size());
  std::size_t next = 0;
  const double limit = mix.horizon_s + mix.drain_s;
  double now = 0, frag_integral = 0, free_integral = 0;
  std::vector<double> host_frag(s.size());
  for (std::size_t h = 0; h < s.size(); ++h) host_frag[h] = host_fragmentation(s[h], mix, c, shapes);
  double frag_now = 0;
  for (double f : host_frag) frag_now += f;
  int free_now = 0;
  for (const auto& h : s) free_now += host_free_gpus(h);
  ReplayOutcome out;
  out.combination = c;
  for (;;) {
    double t = std::min(next < jobs.size() ? jobs[next].arrival : INFINITY, running.empty() ? INFINITY : running.top().first);
    if (!std::isfinite(t) || t > limit) break;
    double span_end = std::min(t, mix.horizon_s);
    if (span_end > now) {
      frag_integral += frag_now * (span_end - now);
      free_integral += free_now * (span_end - now);
    }
    now = t;
    std::vector<bool> touched(s.size(), false);
    while (!running.empty() && running.top().first <= t) {
      Job& j = jobs[running.top().second];
      for (const auto& p : j.placed) {
        apply(s, p, -1);
        touched[p.host] = true;
      }
      running.pop();
    }
    while (next < jobs.size() && jobs[next].arrival <= t) {
      queues[jobs[next].cls].push_back(next);
      ++next;
    }
    std::vector<bool> blocked(mix.classes.size(), false);
    for (;;) {
      std::size_t k = queues.size();
      for (std::size_t i = 0; i < queues.size(); ++i)
        if (!blocked[i] && !queues[i].empty() && (k == queues.size() || jobs[queues[i].front()].arrival < jobs[queues[k].front()].arrival))
          k = i;
      if (k == queues.size()) break;
      std::size_t id = queues[k].front();
      Job& j = jobs[id];
      const WorkloadClass& w = mix.classes[j.cls];
      if (!try_start(s, j, w, c, t, touched)) {
        blocked[k] = true;
        continue;
      }
      j.start = t;
      j.remote = std::any_of(j.placed.begin(), j.placed.end(), [](const WorkerPlacement& p) { return !p.local; });
      j.end = t + (j.remote ? w.duration_remote_s : w.duration_s);
      running.emplace(*j.end, id);
      queues[k].pop_front();
    }
    for (std::size_t h = 0; h < s.size(); ++h)
      if (touched[h]) {
        frag_now -= host_frag[h];
        host_frag[h] = host_fragmentation(s[h], mix, c, shapes);
        frag_now += host_frag[h];
      }
    free_now = 0;
    for (const auto& h : s) free_now += host_free_gpus(h);
  }
  if (now < mix.horizon_s) {
    frag_integral += frag_now * (mix.horizon_s - now);
    free_integral += free_now * (mix.horizon_s - now);
  }
  out.end_s = std::min(limit, std::max(now, mix.horizon_s));
  out.free_gpus_mean = free_integral / mix.horizon_s;
  out.fragmentation_gpus_mean = frag_integral / mix.horizon_s;
  out.fragmentation_share = out.free_gpus_mean > 0 ? out.fragmentation_gpus_mean / out.free_gpus_mean : 0;
  for (std::size_t k = 0; k < mix.classes.size(); ++k) {
    const WorkloadClass& w = mix.classes[k];
    ClassOutcome co;
    co.name = w.name;
    std::vector<double> ages;
    double exec = 0;
    int remote = 0;
    for (const auto& j : jobs) {
      if (j.cls != k) continue;
      ++co.arrived;
      for (std::size_t i = 0; i < j.placed.size(); ++i)
        co.stranded_gpu_h += w.gpus_per_worker * ((j.start ? *j.start : out.end_s) - j.placed_at[i]) / 3600;
      if (!j.start) continue;
      ++co.started;
      ages.push_back(*j.start - j.arrival);
      exec += *j.end - *j.start;
      remote += j.remote;
      if (*j.end <= out.end_s) {
        ++co.completed;
        co.completed_gpu_h += w.workers * w.gpus_per_worker * (*j.end - *j.start) / 3600;
      }
    }
    std::sort(ages.begin(), ages.end());
    if (!ages.empty()) {
      double sum = 0;
      for (double a : ages) sum += a;
      co.queue_mean_s = sum / static_cast<double>(ages.size());
      co.queue_p50_s = stats::quantile_estimate_sorted(ages, 0.5);
      co.queue_p90_s = stats::quantile_estimate_sorted(ages, 0.9);
      co.queue_p99_s = stats::quantile_estimate_sorted(ages, 0.99);
      co.queue_max_s = ages.back();
      co.exec_mean_s = exec / static_cast<double>(ages.size());
      co.remote_share = remote / static_cast<double>(ages.size());
    }
    out.completed_gpu_h += co.completed_gpu_h;
    out.stranded_gpu_h += co.stranded_gpu_h;
    out.classes.push_back(co);
  }
  return out;
}

}  // namespace

std::vector<Combination> all_combinations() {
  std::vector<Combination> out;
  for (Policy p : kPolicies)
    for (bool gang : {true, false})
      for (GpuChoice choice : {GpuChoice::kBinpack, GpuChoice::kSpread}) out.push_back({p, gang, choice});
  return out;
}

std::string combination_name(const Combination& c) {
  return std::string(policy_name(c.locality)) + (c.gang ? "/gang/" : "/no-gang/") + (c.choice == GpuChoice::kBinpack ? "binpack" : "spread");
}

QueueReplay replay_queue(const ClusterInventory& inventory, const JobMix& mix, const std::vector<Combination>& combinations) {
  QueueReplay r;
  r.inventory_file = inventory.file;
  r.mix = mix;
  State initial;
  for (const auto& node : inventory.nodes) {
    Host h;
    for (const auto& n : node.numa) {
      h.push_back({n.free_gpus, n.free_cpus});
      r.total_gpus += n.gpus;
    }
    initial.push_back(h);
  }
  std::vector<Job> jobs = draw_arrivals(mix);
  r.jobs = static_cast<int>(jobs.size());
  // Each placement scans every host: bound the work so that a replay ends in minutes, not days.
  double workers = 0;
  for (const auto& j : jobs) workers += mix.classes[j.cls].workers;
  if (workers * static_cast<double>(initial.size()) * static_cast<double>(combinations.size()) > kMaxReplayWork)
    throw InputError(fmt::format("{}: {} workers on {} hosts is more than one replay takes (workers x hosts x 12 combinations at most "
                                 "{:g}); shorten the horizon, lower the rates or replay a part of the cluster",
                                 mix.file, workers, initial.size(), kMaxReplayWork));
  for (const auto& c : combinations) r.outcomes.push_back(replay_one(initial, mix, jobs, c));
  return r;
}

}  // namespace placebench::harness::decisions
