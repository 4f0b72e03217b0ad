// `placebench feasible`: free capacity is not runnable capacity. Given free GPUs, CPUs and memory per NUMA
// node of each host and a job contract, how many workers can be placed with their CPUs (and memory) local to
// their GPUs, how many when locality is relaxed, and why each host cannot take one.
// Workers never span hosts, so the cluster maximum is the sum of per-host maxima; per host the search is
// exact (closed forms, and a branch-and-bound search where a worker may span NUMA nodes) within documented
// limits, beyond which a greedy placement gives a lower bound and says so (docs/decisions.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace placebench::harness::decisions {

struct NumaCapacity {
  int id = 0;
  int gpus = 0, free_gpus = 0;
  int cpus = 0, free_cpus = 0;
  std::optional<double> memory_gib, free_memory_gib;  // absent: not given, so not a constraint
};

struct ClusterNode {
  std::string name;
  std::vector<NumaCapacity> numa;
};

struct ClusterInventory {
  std::string file;
  std::vector<ClusterNode> nodes;
};

enum class Locality { kStrict, kRelaxed };

// strict: a worker's CPUs and memory come from the NUMA node(s) of its GPUs. relaxed: from any NUMA node(s)
// of the same host. span_numa false: each of a worker's GPUs, CPUs and memory sits on a single NUMA node
// (under relaxed its CPU-and-memory node may differ from its GPU node); true: any split over the host's nodes.
struct JobContract {
  int workers = 1;
  int gpus_per_worker = 1;
  int cpus_per_worker = 0;
  double memory_gib_per_worker = 0.0;
  Locality locality = Locality::kStrict;
  bool span_numa = false;
};

struct FeasibilityInput {
  ClusterInventory inventory;
  std::optional<JobContract> job;
  std::string job_file;
};

// Reads an inventory (YAML or JSON; `job:` may sit in it) and optionally a separate job file (`job:` or the
// contract's keys at the top). Throws InputError with file:line, the key path and the fix.
FeasibilityInput load_feasibility_input(const std::string& inventory_file, const std::string& job_file);
// The same from text (tests); `file` names it in messages.
FeasibilityInput parse_feasibility_text(const std::string& text, const std::string& file, bool job_only = false);

struct SearchLimits {
  int max_numa_nodes = 8;              // NUMA nodes with free GPUs per host for the spanning search
  std::int64_t max_states = 1000000;   // search states per host before falling back to greedy
};

struct NodeFit {
  std::string name;
  int free_gpus = 0, free_cpus = 0;
  int workers_strict = 0, workers_relaxed = 0;  // capped at the job's workers
  bool exact = true;                            // false: greedy lower bound (see notes)
  std::vector<std::string> reasons;             // why it cannot host a worker ("strict: ...", "relaxed: ...")
  std::vector<std::string> notes;
};

struct FeasibilityReport {
  std::string inventory_file;
  JobContract job;
  int free_gpus = 0;
  int placeable_workers_strict = 0, placeable_workers_relaxed = 0;  // capped at job.workers
  bool job_runnable_strict = false, job_runnable_relaxed = false;
  bool exact = true;
  std::vector<NodeFit> nodes;
  std::vector<std::string> notes;
};

FeasibilityReport assess_feasibility(const ClusterInventory& inventory, const JobContract& job,
                                     const SearchLimits& limits = {});

// Workers one host can take under `locality` (the job's own locality is ignored), capped at job.workers.
// exact is set false (and *note says why) when the search fell back to the greedy heuristic.
int max_workers_on_node(const ClusterNode& node, const JobContract& job, Locality locality, const SearchLimits& limits,
                        bool& exact, std::string* note = nullptr);

std::string_view locality_name(Locality locality);
std::string render_feasibility_text(const FeasibilityReport& report);
std::string feasibility_json_text(const FeasibilityReport& report);  // JSON, 2-space indented

}  // namespace placebench::harness::decisions
