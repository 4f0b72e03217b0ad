// The staging workload: how fast host memory reaches the device under each placement arm.
// Backends: `cuda` (cudaMemcpyAsync timed with events, the stream held until a batch is queued) and
// `host` (the "device buffer" is host memory on the device's NUMA node; copies are memcpy by the bound
// worker thread). Every row carries the placement record it ran under; data is checked at every size.
#pragma once
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/placement/record.h"

namespace placebench::harness {

enum class Direction { kH2D, kD2H, kBidir };
enum class HostMemory { kPinned, kPageable, kRegistered, kHostAlloc };

std::string direction_name(Direction d);
std::string host_memory_name(HostMemory m);

struct StagingConfig {
  std::string backend = "auto";  // auto | cuda | host
  PlanRequest placement;         // device, arms, CPUs per worker, remote node, degenerate
  Direction direction = Direction::kH2D;
  HostMemory memory = HostMemory::kPinned;
  std::vector<std::uint64_t> sizes;
  int samples = 20;
  int copies_per_sample = 0;     // 0: enough copies for ~2 ms per sample (at least 1)
  int warmup_copies = 2;
};

struct StagingRow {
  std::string arm;
  std::string direction;
  std::string memory;
  std::uint64_t bytes = 0;
  int copies_per_sample = 0;
  std::vector<double> gbps;      // one value per sample (1 GB/s = 1e9 bytes/s)
  double gbps_median = 0, gbps_p10 = 0, gbps_p90 = 0;
  PlacementRecord placement;
  // cuda backend: the NUMA node of the bound thread that created the CUDA context this arm measured
  // with (a fresh one per arm); -1: an unpinned arm. nullopt: host backend.
  std::optional<int> cuda_context_node;
};

struct StagingResult {
  std::string backend;           // the backend that ran
  std::string backend_reason;    // why (auto's choice)
  std::vector<StagingRow> rows;
};

// Resolves the backend ("auto": cuda when a device is usable, else host) and runs every arm and size.
// Throws InputError for impossible combinations, std::runtime_error when a data check fails.
StagingResult run_staging(const Inventory& inv, const StagingConfig& config);

// Bandwidth of one sample in GB/s (1e9 B/s): bytes x copies / seconds, both directions' bytes for bidir
// (which ends when the slower direction does). Throws std::invalid_argument for seconds <= 0.
double staging_gbps(std::uint64_t bytes, int copies, double seconds, bool bidir);

// The placement request staging plans with (bidir needs a second worker: one thread per direction).
PlanRequest staging_plan_request(const StagingConfig& config);

// One runner trial of staging: after `warmup_steps` untimed steps, `steps` timed steps of `copies`
// copies of `bytes` each, on a worker thread placed by `plan`. Data is checked at the end (mismatch:
// std::runtime_error). `stop` (may be null) ends the trial early between steps.
struct StagingSteps {
  std::string backend;
  std::vector<std::int64_t> step_ns;
  PlacementRecord placement;
  bool stopped = false;
};
// Refuses (InputError naming `where`) a largest batch whose buffers -- host and device-side copies, both
// directions for bidir; host memory on the host backend -- would take more than 80% of MemAvailable.
// Bytes of the arm's NUMA-placed host buffer: hostalloc on the cuda backend copies from cudaHostAlloc
// memory instead, so its placed buffer is one page (the thread is still bound), not the largest size.
std::size_t staging_placed_bytes(HostMemory memory, bool cuda, std::size_t max_bytes);

void check_staging_memory(std::uint64_t max_bytes, Direction direction, const std::string& where);

StagingSteps run_staging_steps(const Inventory& inv, const StagingConfig& config, const ArmPlan& plan, std::uint64_t bytes,
                               int copies, int warmup_steps, int steps, const std::atomic<bool>* stop);

nlohmann::json staging_to_json(const StagingResult& result);
std::string render_staging_table(const StagingResult& result);

}  // namespace placebench::harness
