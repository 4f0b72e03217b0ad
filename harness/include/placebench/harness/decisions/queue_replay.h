// `placebench queue`: a deterministic discrete-event replay of a job mix on a cluster inventory (the
// `feasible` format) under every combination of locality policy (strict, prefer, any), gang admission (on,
// off) and node/GPU choice (binpack, spread): per class the queue-age percentiles, completed and stranded
// GPU-hours, and the fragmentation of free capacity (Weng et al., ATC'23). docs/queue-replay.md.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/decisions/decide.h"
#include "placebench/harness/decisions/feasible.h"

namespace placebench::harness::decisions {

inline constexpr int kQueueReplaySchemaVersion = 1;

// One workload class of the mix: Poisson arrivals, gang of `workers`, each worker on one host.
struct WorkloadClass {
  std::string name;
  double arrivals_per_hour = 1;
  int workers = 1, gpus_per_worker = 1, cpus_per_worker = 0;
  double duration_s = 3600;         // execution time when every worker is local
  double duration_remote_s = 3600;  // when any worker is not (GPUs or CPUs over more than one NUMA node)
};

struct JobMix {
  std::string file;
  std::uint64_t seed = 1;
  double horizon_s = 86400;  // arrivals in [0, horizon)
  double drain_s = 86400;    // the replay ends at horizon + drain; jobs not started by then are counted
  std::vector<WorkloadClass> classes;
};

// Reads and validates a job mix (YAML; docs/queue-replay.md). InputError with file:line, key and fix.
JobMix load_job_mix(const std::string& file);
JobMix parse_job_mix(const std::string& text, const std::string& file);

enum class GpuChoice { kBinpack, kSpread };
struct Combination {
  Policy locality = Policy::kStrict;
  bool gang = true;
  GpuChoice choice = GpuChoice::kBinpack;
};
std::vector<Combination> all_combinations();  // 3 x 2 x 2, in a fixed order
std::string combination_name(const Combination& c);  // "strict/gang/binpack"

struct ClassOutcome {
  std::string name;
  int arrived = 0, started = 0, completed = 0;
  // Over started jobs; absent when none started ("never started (0 of N)", null in JSON, infinite for
  // decide --queue-from): never 0, which would read as an instant start.
  std::optional<double> queue_mean_s, queue_p50_s, queue_p90_s, queue_p99_s, queue_max_s;
  std::optional<double> exec_mean_s;    // started jobs
  std::optional<double> remote_share;   // started jobs that ran non-local
  double completed_gpu_h = 0, stranded_gpu_h = 0;
};

struct ReplayOutcome {
  Combination combination;
  std::vector<ClassOutcome> classes;
  double completed_gpu_h = 0, stranded_gpu_h = 0;
  double free_gpus_mean = 0;           // time-averaged over [0, horizon)
  double fragmentation_gpus_mean = 0;  // time-averaged expected GPUs unusable by the typical task
  double fragmentation_share = 0;      // fragmentation_gpus_mean / free_gpus_mean
  double end_s = 0;
};

struct QueueReplay {
  std::string inventory_file;
  JobMix mix;
  int total_gpus = 0, jobs = 0;
  std::vector<ReplayOutcome> outcomes;
};

QueueReplay replay_queue(const ClusterInventory& inventory, const JobMix& mix, const std::vector<Combination>& combinations);

// ---- fragmentation (Weng et al., "Beware of Fragmentation", USENIX ATC'23, section 3) ----
// A node's free GPUs as free fractions per GPU (1 = a whole free GPU), and whether the task fits the node at
// all in its other dimensions (CPUs, and locality where the policy requires it).
struct TaskShape {
  double gpus = 1;        // GPU demand: a fraction of one GPU (< 1) or a whole number
  double popularity = 1;  // share of tasks of this shape
};
// F_n(m): the free GPU capacity of node n that task m cannot use: all of it when m does not fit n, else the
// free capacity of the GPUs with less free than min(demand, 1).
double task_fragment(const std::vector<double>& free_per_gpu, const TaskShape& task, bool fits_other_dimensions);
// F_n(M) = sum over m of popularity_m x F_n(m) (popularity normalised to sum to 1).
double expected_fragment(const std::vector<double>& free_per_gpu, const std::vector<TaskShape>& tasks,
                         const std::vector<bool>& fits_other_dimensions);

// The default table fits 100 columns (a block per class); `wide`: one row per combination and class.
std::string render_queue_table(const QueueReplay& replay, bool wide = false);
// Queue JSON (queue_json.cpp: one field table per record, walked by both): the writer, without the evidence
// stamp, and the typed reader. The reader checks kind, schema_version and every key of every record;
// InputError "WHERE: PATH.KEY: expected ...; write it again with `placebench queue --json`".
nlohmann::json queue_replay_to_json(const QueueReplay& replay);
QueueReplay queue_replay_from_json(const nlohmann::json& replay, const std::string& where);

// `decide --queue-from`: each policy's queue time for one class under one gang/choice setting, in seconds
// (stat: mean, p50, p90 or p99); +infinity for a policy under which no job of the class started (that
// policy cannot place it). InputError naming the file and what is missing or wrong: no started job under
// any policy, a negative or non-finite time, a time beyond 8760 h, a field of another type.
std::array<double, 3> queue_times_from_replay(const nlohmann::json& replay, const std::string& file, const std::string& class_name,
                                              bool gang, GpuChoice choice, const std::string& stat);
// The same from the file (read as every results file is: bounded, regular files only).
std::array<double, 3> load_queue_times(const std::string& file, const std::string& class_name, bool gang, GpuChoice choice,
                                       const std::string& stat);

}  // namespace placebench::harness::decisions
