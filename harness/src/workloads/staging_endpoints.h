// The two ends of a staging copy for one arm, per backend (internal to the staging workload).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "placebench/harness/workloads/staging.h"

namespace placebench::harness::detail {

class StagingEndpoints {
 public:
  virtual ~StagingEndpoints() = default;
  // Writes the pattern on the source side(s) of `bytes`.
  virtual void prepare(std::size_t bytes, std::uint64_t seed) = 0;
  // Seconds for `copies` copies of `bytes` in the configured direction(s).
  virtual double batch(std::size_t bytes, int copies) = 0;
  // Offset of the first wrong byte on the destination side(s), or nullopt.
  virtual std::optional<std::size_t> check(std::size_t bytes, std::uint64_t seed) = 0;
};

// Called on the bound worker thread that owns `placed` (worker 0) and, for bidir, `second` (worker 1).
std::unique_ptr<StagingEndpoints> make_host_endpoints(const StagingConfig& cfg, const ArmPlan& plan, PlacedWorker& placed,
                                                      PlacedWorker* second, std::size_t max_bytes);
// fresh_context: first replace the process's CUDA context by one created on this (bound) thread, so the
// driver's internal staging buffers follow the arm, not whichever arm ran first (nothing else may hold
// CUDA resources then: the staging command's arms, not the pipeline).
std::unique_ptr<StagingEndpoints> make_cuda_endpoints(const StagingConfig& cfg, int gpu, PlacedWorker& placed,
                                                      PlacedWorker* second, std::size_t max_bytes, bool fresh_context);

}  // namespace placebench::harness::detail
