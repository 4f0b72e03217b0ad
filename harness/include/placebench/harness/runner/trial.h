// One trial: one arm of one class running its workload for `steps` steps after the warm-up, as a
// self-contained record (the line written to trials.jsonl), and that line as its readers take it.
#pragma once
#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  int position = 0;  // 0-based position of the cell within its round
  std::string condition{};  // the interference condition's name; "" when the class has none
};

// A round's slot of an arm under a condition, as the run's bookkeeping keys it: the arm's name, or
// "ARM@CONDITION" in a class with conditions (trials are unique per class, round and cell).
std::string cell_key(const std::string& arm, const std::string& condition);

// One line of trials.jsonl as every reader takes it: the fields analysis, check and --resume use, typed,
// and the whole line for what only some printers read (system, the workload's summary fields, every
// placement record). Made by the one reader of trial lines (RunDirectory::read_trial_records, or
// trial_record_from_json for one line), which checks each field it reads.
struct TrialRecord {
  std::string class_name, arm;
  int round = 0;
  std::optional<int> position;            // the arm's position in its round (absent in hand-made lines)
  std::vector<std::string> flags;         // placement_partial, placement_failed, degenerate, non_steady: ...
  std::string placement_status;           // the (first) worker's record: verified, partial, failed; "" if none
  bool degenerate = false;                // ... and whether it ran where the baseline runs
  std::string condition;                  // the interference condition ("" when the class has none)
  std::optional<double> aggressor_gbps;   // the hog's own achieved STREAM bandwidth over the trial (membw)
  std::optional<double> aggressor_cores;  // ... and its CPU time per second of the trial (any hog)
  bool aggressor_degenerate = false;      // its `other` node was the device's (a one-node machine)
  bool aggressor_starved = false;         // a "hog starved" problem: the hog did not apply its dose
  std::vector<double> step_ns;
  std::map<std::string, double> summary;  // every number of the summary: median_ns, p99_ns, bytes_per_s, ...
  nlohmann::json line;                    // the line as written

  std::string cell() const { return cell_key(arm, condition); }
  // Whether any flag starts with `prefix` ("placement_", "degenerate").
  bool has_flag(std::string_view prefix) const;
};

// Runs the trial. Returns a null JSON when `stop` was raised before the trial finished (an unfinished
// trial is never recorded). Throws InputError when the class cannot be planned on this node.
// `session` (may be null outside mpirun) is needed by collective classes; every rank runs the trial.
nlohmann::json run_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                         const TrialSlot& slot, const std::atomic<bool>* stop, collectives::MpiSession* session = nullptr);

// The per-trial statistic the class compares (median step, p99 step, or throughput in steps/s) from a
// trial's summary. The record's reader checked that its class's statistic is there.
double trial_statistic(const TrialRecord& trial, Statistic statistic);
// The summary key of a statistic: median_ns, p99_ns, throughput_steps_s.
const char* statistic_key(Statistic statistic);

// Summary of a series of step times: n, median/p90/p99/mean (ns), throughput (steps/s), and flags for a
// series that is not steady (a drift between its first and last thirds).
nlohmann::json summarize_steps(const std::vector<std::int64_t>& step_ns, std::vector<std::string>& flags);

}  // namespace placebench::harness
