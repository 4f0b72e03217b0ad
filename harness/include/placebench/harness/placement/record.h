// Applying an arm to the calling thread and proving it: the placement record that travels with every
// measurement (effective affinity, memory policy, the node of every page, a status).
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/placement/plan.h"
#include "placebench/hostpipe/numa_buffer.h"
#include "placebench/hostpipe/thread_watch.h"

namespace placebench::harness {

struct PlacementRecord {
  std::string arm;
  int device_numa = -1;
  std::vector<int> requested_cpus;  // empty: unpinned
  std::vector<int> requested_mems;  // empty: default policy
  std::vector<int> effective_cpus;  // sched_getaffinity of the worker thread
  std::string mem_policy;           // get_mempolicy(MPOL_F_ADDR) mode of the buffer
  std::vector<int> mem_policy_nodes;
  std::map<int, std::size_t> pages;  // node -> pages (-1: not present, -2: unknown)
  double requested_pages_pct = 0;   // share of pages on the requested nodes (100 for unpinned)
  std::string status;               // "verified", "partial", "failed"
  bool degenerate = false;
  bool pinned = false;              // the buffer is page-locked for DMA (cudaHostRegister / cudaHostAlloc)
  std::vector<std::string> problems;  // why it is not verified, in words
  // Sampled during the trial (pinned arms): threads started after the trial began, and every thread
  // of the processes in PLACEBENCH_WATCH_PIDS, that ran outside the arm's CPUs. nullopt: not watched.
  std::optional<hostpipe::ThreadWatchResult> threads;
};

// A worker's placed state: the thread is bound (when the arm pins it) and the buffer allocated
// (bound, first-touched by this thread).
struct PlacedWorker {
  hostpipe::NumaBuffer buffer;
  PlacementRecord record;
};

// Binds the calling thread to the worker's CPUs, allocates `bytes` on its memory nodes, touches every
// page from this thread, then verifies. Never throws for a placement the kernel refuses: that is a
// `failed` record. Throws std::runtime_error only when memory cannot be mapped at all.
PlacedWorker apply_placement(const ArmPlan& plan, std::size_t worker, std::size_t bytes);
// The same for any placement of the arm (e.g. plan.loop, the training loop's).
PlacedWorker apply_placement(const ArmPlan& plan, const WorkerPlacement& placement, std::size_t bytes);

// Re-reads affinity, policy and page locations, and sets status and problems.
void verify_placement(PlacementRecord& record, const hostpipe::NumaBuffer& buffer);

nlohmann::json placement_to_json(const PlacementRecord& record);

// Late threads during a trial: watches this process's new threads, and every thread of the processes
// listed in PLACEBENCH_WATCH_PIDS (comma-separated; the training job beside placebench), against the
// arm's CPUs. No CPUs (an unpinned arm): watches nothing.
class TrialThreadWatch {
 public:
  explicit TrialThreadWatch(const std::vector<int>& arm_cpus);
  // Stops the watch, stores what it saw in record.threads and, when a thread ran outside the arm's
  // CPUs, adds the flag "late_threads: ..." (counted as a flagged trial by the analysis).
  void finish(PlacementRecord& record, std::vector<std::string>& flags);

 private:
  std::unique_ptr<hostpipe::ThreadWatch> watch_;
};

}  // namespace placebench::harness
