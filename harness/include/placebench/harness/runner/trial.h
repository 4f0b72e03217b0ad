// One trial: one arm of one class running its workload for `steps` steps after the warm-up, as a
// self-contained record (the line written to trials.jsonl).
#pragma once
#include <atomic>
#include <nlohmann/json.hpp>

#include "placebench/harness/runner/config.h"
#include "placebench/harness/topology/inventory.h"

namespace placebench::collectives {
class MpiSession;
}

namespace placebench::harness {

struct TrialSlot {
  std::string class_name;
  std::size_t class_index = 0;
  Arm arm = Arm::kLocal;
  int round = 0;
  int position = 0;  // 0-based position of the arm within its round
};

// Runs the trial. Returns a null JSON when `stop` was raised before the trial finished (an unfinished
// trial is never recorded). Throws InputError when the class cannot be planned on this node.
// `session` (may be null outside mpirun) is needed by collective classes; every rank runs the trial.
nlohmann::json run_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                         const TrialSlot& slot, const std::atomic<bool>* stop, collectives::MpiSession* session = nullptr);

// The per-trial statistic the class compares (median step, p99 step, or throughput in steps/s) from a
// trial line's summary.
double trial_statistic(const nlohmann::json& trial, Statistic statistic);

// Summary of a series of step times: n, median/p90/p99/mean (ns), throughput (steps/s), and flags for a
// series that is not steady (a drift between its first and last thirds).
nlohmann::json summarize_steps(const std::vector<std::int64_t>& step_ns, std::vector<std::string>& flags);

}  // namespace placebench::harness
