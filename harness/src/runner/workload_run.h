// What one workload produced in a trial, before it becomes a trial line (internal to the runner).
#pragma once
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/harness/placement/record.h"
#include "placebench/harness/runner/config.h"

namespace placebench::collectives {
class MpiSession;
}

namespace placebench::harness::detail {

struct WorkloadRun {
  std::string backend;
  std::vector<std::int64_t> step_ns;   // empty on ranks other than 0 for collectives
  PlacementRecord placement;           // the (first) worker's record; rank 0's for collectives
  nlohmann::json extra = nlohmann::json::object();  // workload-specific summary fields
  bool stopped = false;
  std::vector<PlacementRecord> more_placements;  // the other records that can flag the trial (pipeline:
                                                 // the other workers, the ring, the training loop)
};

// One collective of the class, `steps` timed iterations (a common start instant, one call, sync; the slowest rank's
// time is the step) after the warm-up, on every rank of the session, under the arm. Every element is
// checked; a wrong one is an error.
WorkloadRun collective_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls, Arm arm,
                             collectives::MpiSession& session);

}  // namespace placebench::harness::detail
