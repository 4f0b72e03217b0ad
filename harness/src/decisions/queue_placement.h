// The queue replay's cluster state and placement rules (docs/queue-replay.md, "The replay"): a worker on
// one host, local (one NUMA node) or locality-blind, binpack or spread. Internal to queue_replay.cpp.
#pragma once
#include <optional>
#include <vector>

#include "placebench/harness/decisions/queue_replay.h"

namespace placebench::harness::decisions::detail {

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

int host_free_gpus(const Host& h);
// Where the policy of `c` would put one worker of `w` now; nullopt when nowhere. Feasibility is monotone:
// a worker that cannot be placed cannot be placed with less free either.
std::optional<WorkerPlacement> place(const State& s, const WorkloadClass& w, const Combination& c);
// Takes (sign +1) or frees (-1) what the placement holds.
void apply(State& s, const WorkerPlacement& p, int sign);

}  // namespace placebench::harness::decisions::detail
