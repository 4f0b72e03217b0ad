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
std::unique_ptr<StagingEndpoints> make_cuda_endpoints(const StagingConfig& cfg, int gpu, PlacedWorker& placed,
                                                      PlacedWorker* second, std::size_t max_bytes);

}  // namespace placebench::harness::detail
