// The hog of a trial's interference condition (issue 32): policy here -- which node `device` and `other`
// mean for the class's device, which CPUs the hog's threads take -- and hostpipe's ContentionThreads as
// the mechanism. The trial's `interference` record says what the hog did, so a dose is a measured figure.
#pragma once
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "placebench/harness/runner/config.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/hostpipe/pipeline/contention.h"

namespace placebench::harness::detail {

// Where a condition's hog runs: its node and one CPU per thread. `other` is the node farthest from the
// device's (plan.h's farthest_node); on a one-node machine it is the device's own node, degenerate, with
// a note saying so. Threads take the node's allowed CPUs outside `arm_cpus` in turn, and share the arm's
// CPUs (with a note) only when the node has no other.
struct HogPlacement {
  int node = 0;
  std::vector<int> cpus;
  bool degenerate = false;
  std::vector<std::string> notes;
};
HogPlacement place_hog(const Inventory& inv, const ClassConfig& cls, const Condition& k, const std::vector<int>& arm_cpus);

// A condition's load over one trial: started (every thread placed and running) on construction, stopped
// by finish(), which returns the trial's `interference` record: condition, hog, node, cpus, threads,
// seconds, gbps (membw: the triad's achieved bandwidth summed over the threads), cpu_s and cores (the
// threads' CPU time, and per second of the load), degenerate, notes, problems.
class InterferenceLoad {
 public:
  InterferenceLoad(const Inventory& inv, const ClassConfig& cls, const Condition& k, const std::vector<int>& arm_cpus);
  nlohmann::json finish();

 private:
  const Condition& condition_;
  HogPlacement placement_;
  std::chrono::steady_clock::time_point started_;
  std::optional<hostpipe::ContentionThreads> threads_;
};

}  // namespace placebench::harness::detail
