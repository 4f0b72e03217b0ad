// The queue replay: arrivals drawn once from the mix's seed (the same jobs for every combination), then an
// event loop (arrival, completion, scheduling pass in arrival order with backfill) per combination.
// Placement rules, the gang and no-gang modes and every figure: docs/queue-replay.md.
//
// Bounded work (docs/queue-replay.md#work): the waiting classes are grouped by what their head needs
// (GPUs and CPUs per worker, and the gang size); a pass takes the earliest-arrived head among the groups
// not blocked (a scan of the G groups per start, then log K); a group whose head cannot start is blocked,
// every class of it, until a completion frees capacity (free capacity only shrinks in between, and
// placement is monotone in it), so neither an arrival nor a completion tries every waiting class; the
// fragmentation of a host is computed per distinct worker shape (GPUs, CPUs), not per class. Per event:
// O(G x (starts + 1) + log K + S x H x N) for S shapes on the H hosts of N NUMA nodes it touched.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <queue>
#include <random>
#include <set>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/stats/quantile.h"
#include "queue_placement.h"

namespace placebench::harness::decisions {
namespace {

using detail::apply;
using detail::Host;
using detail::host_free_gpus;
using detail::place;
using detail::State;
using detail::WorkerPlacement;

constexpr double kMaxReplayWork = 2e10;

struct Job {
  std::size_t cls = 0;
  double arrival = 0;
  std::vector<WorkerPlacement> placed;
  std::vector<double> placed_at;
  std::optional<double> start, end;
  bool remote = false;
};

// The mix's distinct worker shapes (GPUs, CPUs per worker), each with the summed arrival rate of its
// classes: fragmentation depends on a task's shape only (Weng et al.'s popularity is additive).
struct Shapes {
  std::vector<WorkloadClass> worker;  // one representative class per shape
  std::vector<TaskShape> tasks;
};

Shapes distinct_shapes(const JobMix& mix) {
  Shapes s;
  std::map<std::pair<int, int>, std::size_t> index;
  for (const auto& w : mix.classes) {
    auto [it, fresh] = index.emplace(std::make_pair(w.gpus_per_worker, w.cpus_per_worker), s.tasks.size());
    if (fresh) {
      s.worker.push_back(w);
      s.tasks.push_back({static_cast<double>(w.gpus_per_worker), 0});
    }
    s.tasks[it->second].popularity += w.arrivals_per_hour;
  }
  return s;
}

// One host's fragmentation now (Weng et al.): the expected free GPUs the typical worker cannot use there; a
// worker "fits" as the policy would place it (strict: on one NUMA node). The cluster's is the sum over hosts.
double host_fragmentation(const Host& host, const Combination& c, const Shapes& shapes) {
  std::vector<double> free_per_gpu(static_cast<std::size_t>(host_free_gpus(host)), 1.0);
  std::vector<bool> fits;
  State one{host};
  for (const auto& w : shapes.worker) fits.push_back(static_cast<bool>(place(one, w, c)));
  return expected_fragment(free_per_gpu, shapes.tasks, fits);
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

// Starts job j if it can start now (gang: all workers at once; no gang: as many workers as fit, held);
// returns whether it started. `touched` collects the hosts whose free capacity changed.
bool try_start(State& s, Job& j, const WorkloadClass& w, const Combination& c, double t, std::vector<bool>& touched) {
  const std::size_t before = c.gang ? 0 : j.placed.size();
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
  for (std::size_t i = before; i < j.placed.size(); ++i) touched[j.placed[i].host] = true;
  return static_cast<int>(j.placed.size()) == w.workers;
}

// A class's figures over its jobs (arrival order). Queue statistics are of started jobs; with none they are
// absent (never started), not 0.
ClassOutcome class_outcome(const WorkloadClass& w, const std::vector<const Job*>& jobs, double end_s) {
  ClassOutcome co;
  co.name = w.name;
  std::vector<double> ages;
  double exec = 0;
  int remote = 0;
  for (const Job* j : jobs) {
    ++co.arrived;
    for (std::size_t i = 0; i < j->placed.size(); ++i)
      co.stranded_gpu_h += w.gpus_per_worker * ((j->start ? *j->start : end_s) - j->placed_at[i]) / 3600;
    if (!j->start) continue;
    ++co.started;
    ages.push_back(*j->start - j->arrival);
    exec += *j->end - *j->start;
    remote += j->remote;
    if (*j->end <= end_s) {
      ++co.completed;
      co.completed_gpu_h += w.workers * w.gpus_per_worker * (*j->end - *j->start) / 3600;
    }
  }
  if (ages.empty()) return co;
  std::sort(ages.begin(), ages.end());
  double sum = 0;
  for (double a : ages) sum += a;
  const double n = static_cast<double>(ages.size());
  co.queue_mean_s = sum / n;
  co.queue_p50_s = stats::quantile_estimate_sorted(ages, 0.5);
  co.queue_p90_s = stats::quantile_estimate_sorted(ages, 0.9);
  co.queue_p99_s = stats::quantile_estimate_sorted(ages, 0.99);
  co.queue_max_s = ages.back();
  co.exec_mean_s = exec / n;
  co.remote_share = remote / n;
  return co;
}

// What a head of class w needs to start: classes with the same need start or fail alike in one state
// (gang: the whole gang, GPUs and CPUs per worker and the worker count; no gang: one more worker).
std::tuple<int, int, int> need_key(const WorkloadClass& w, bool gang) {
  return {w.gpus_per_worker, w.cpus_per_worker, gang ? w.workers : 1};
}

// The classes waiting to start, grouped by need: per group the non-empty classes ordered by their head's
// arrival, and whether the group's head failed since capacity was last freed (then every class of the
// group would fail too: the need is the same and free capacity only shrank, and placement is monotone).
struct NeedGroup {
  std::set<std::pair<double, std::size_t>> heads;  // (head's arrival, class)
  bool blocked = false;
};

class Replay {
 public:
  Replay(const State& initial, const JobMix& mix, std::vector<Job> jobs, const Combination& c)
      : s_(initial), mix_(mix), jobs_(std::move(jobs)), c_(c), shapes_(distinct_shapes(mix)), queues_(mix.classes.size()),
        group_of_(mix.classes.size()), host_frag_(initial.size()), host_free_(initial.size()) {
    std::map<std::tuple<int, int, int>, std::size_t> index;
    for (std::size_t k = 0; k < mix.classes.size(); ++k) {
      auto [it, fresh] = index.emplace(need_key(mix.classes[k], c.gang), groups_.size());
      if (fresh) groups_.emplace_back();
      group_of_[k] = it->second;
    }
    for (std::size_t h = 0; h < s_.size(); ++h) {
      host_frag_[h] = host_fragmentation(s_[h], c_, shapes_);
      frag_now_ += host_frag_[h];
      host_free_[h] = host_free_gpus(s_[h]);
      free_now_ += host_free_[h];
    }
  }

  ReplayOutcome run();

 private:
  using Done = std::pair<double, std::size_t>;
  void account_until(double t);
  void release_until(double t, std::vector<bool>& touched);
  void admit_until(double t);
  void schedule_pass(double t, std::vector<bool>& touched);
  void refresh(const std::vector<bool>& touched);
  NeedGroup& group(std::size_t k) { return groups_[group_of_[k]]; }
  void add_head(std::size_t k) { group(k).heads.emplace(jobs_[queues_[k].front()].arrival, k); }

  State s_;
  const JobMix& mix_;
  std::vector<Job> jobs_;
  Combination c_;
  Shapes shapes_;
  std::priority_queue<Done, std::vector<Done>, std::greater<>> running_;
  std::vector<std::deque<std::size_t>> queues_;  // one FIFO per class
  std::vector<NeedGroup> groups_;
  std::vector<std::size_t> group_of_;  // per class
  std::size_t next_ = 0;
  double now_ = 0, frag_integral_ = 0, free_integral_ = 0, frag_now_ = 0;
  std::vector<double> host_frag_;
  std::vector<int> host_free_;
  int free_now_ = 0;
};

void Replay::account_until(double t) {
  double span_end = std::min(t, mix_.horizon_s);
  if (span_end > now_) {
    frag_integral_ += frag_now_ * (span_end - now_);
    free_integral_ += free_now_ * (span_end - now_);
  }
  now_ = std::max(now_, t);
}

// Completions up to t free their workers; then every group may start again.
void Replay::release_until(double t, std::vector<bool>& touched) {
  bool freed = false;
  while (!running_.empty() && running_.top().first <= t) {
    for (const auto& p : jobs_[running_.top().second].placed) {
      apply(s_, p, -1);
      touched[p.host] = true;
    }
    running_.pop();
    freed = true;
  }
  if (freed)
    for (NeedGroup& g : groups_) g.blocked = false;
}

void Replay::admit_until(double t) {
  while (next_ < jobs_.size() && jobs_[next_].arrival <= t) {
    std::size_t k = jobs_[next_].cls;
    queues_[k].push_back(next_++);
    if (queues_[k].size() == 1) add_head(k);
  }
}

// Arrival order with backfill: the earliest-arrived head among the classes not blocked in this pass (a
// class that cannot start its head cannot start a later job of it this pass, nor can a class of its need).
void Replay::schedule_pass(double t, std::vector<bool>& touched) {
  for (;;) {
    NeedGroup* best = nullptr;
    for (NeedGroup& g : groups_)
      if (!g.blocked && !g.heads.empty() && (!best || *g.heads.begin() < *best->heads.begin())) best = &g;
    if (!best) return;
    const std::size_t k = best->heads.begin()->second;
    const std::size_t id = queues_[k].front();
    Job& j = jobs_[id];
    const WorkloadClass& w = mix_.classes[k];
    if (!try_start(s_, j, w, c_, t, touched)) {
      best->blocked = true;
      continue;
    }
    best->heads.erase(best->heads.begin());
    j.start = t;
    j.remote = std::any_of(j.placed.begin(), j.placed.end(), [](const WorkerPlacement& p) { return !p.local; });
    j.end = t + (j.remote ? w.duration_remote_s : w.duration_s);
    running_.emplace(*j.end, id);
    queues_[k].pop_front();
    if (!queues_[k].empty()) add_head(k);
  }
}

void Replay::refresh(const std::vector<bool>& touched) {
  for (std::size_t h = 0; h < s_.size(); ++h)
    if (touched[h]) {
      frag_now_ -= host_frag_[h];
      host_frag_[h] = host_fragmentation(s_[h], c_, shapes_);
      frag_now_ += host_frag_[h];
      free_now_ += host_free_gpus(s_[h]) - host_free_[h];
      host_free_[h] = host_free_gpus(s_[h]);
    }
}

ReplayOutcome Replay::run() {
  const double limit = mix_.horizon_s + mix_.drain_s;
  for (;;) {
    double t = std::min(next_ < jobs_.size() ? jobs_[next_].arrival : INFINITY, running_.empty() ? INFINITY : running_.top().first);
    if (!std::isfinite(t) || t > limit) break;
    account_until(t);
    std::vector<bool> touched(s_.size(), false);
    release_until(t, touched);
    admit_until(t);
    schedule_pass(t, touched);
    refresh(touched);
  }
  account_until(mix_.horizon_s);
  ReplayOutcome out;
  out.combination = c_;
  out.end_s = std::min(limit, std::max(now_, mix_.horizon_s));
  out.free_gpus_mean = free_integral_ / mix_.horizon_s;
  out.fragmentation_gpus_mean = frag_integral_ / mix_.horizon_s;
  out.fragmentation_share = out.free_gpus_mean > 0 ? out.fragmentation_gpus_mean / out.free_gpus_mean : 0;
  std::vector<std::vector<const Job*>> by_class(mix_.classes.size());
  for (const Job& j : jobs_) by_class[j.cls].push_back(&j);
  for (std::size_t k = 0; k < mix_.classes.size(); ++k) {
    out.classes.push_back(class_outcome(mix_.classes[k], by_class[k], out.end_s));
    out.completed_gpu_h += out.classes.back().completed_gpu_h;
    out.stranded_gpu_h += out.classes.back().stranded_gpu_h;
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
  for (const auto& c : combinations) r.outcomes.push_back(Replay(initial, mix, jobs, c).run());
  return r;
}

}  // namespace placebench::harness::decisions
