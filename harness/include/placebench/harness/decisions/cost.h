// `placebench cost`: what a partly admitted gang strands. GPUs that are allocated but wait for the rest of
// the gang do no useful work; the cost is theirs x the wait (or the measured stranded GPU-seconds of gang
// runs). This is internal allocation cost, not cash, unless freed capacity would do useful work.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace placebench::harness::decisions {

// One measured gang incident (a `placebench gang` summary).
struct GangIncident {
  std::string source;   // file (and line) it came from
  double stranded_gpu_s = 0.0;
  std::string outcome;  // complete, failed_deadline, or "" when absent
};

struct CostInput {
  double stranded_gpu_s_per_incident = 0.0;
  std::optional<double> rate_per_gpu_hour;
  double incidents_per_day = 1.0;
  bool incidents_per_day_given = false;
  // How the per-incident figure was obtained: either gpus x wait, or the mean of measured incidents.
  std::optional<double> gpus, wait_s;
  std::string source = "what-if";
  std::vector<GangIncident> incidents;  // measured gangs that stranded GPU time (stranded_gpu_s > 0)
  int on_time_gangs = 0;                // measured gangs that stranded nothing: not incidents, not counted
};

// The measured gangs of --from as the input's incidents: only those that stranded GPU time count (an
// on-time gang is not an incident); stranded_gpu_s_per_incident is their mean (0 when none stranded any).
void set_measured_incidents(CostInput& input, const std::vector<GangIncident>& gangs);

struct CostResult {
  CostInput input;
  double stranded_gpu_min = 0.0, stranded_gpu_h = 0.0;
  std::optional<double> cost;
  double per_day_gpu_h = 0.0;
  std::optional<double> per_day_cost;
};

inline constexpr const char* kInternalCostNote =
    "Allocated-but-idle cost is internal accounting (GPU-hours charged while the gang waits), not cash saved by "
    "avoiding it, unless the freed capacity does useful work.";

CostResult compute_cost(const CostInput& input);

// Stranded GPU-seconds of gang runs. PATH is
//   a file: JSON (an object with stranded_gpu_s, a list of them, or {gangs: [...]}) or JSON Lines (one object
//           per line; stranded_gpu_s at the top or under `summary`);
//   a directory: its trials.jsonl lines that carry stranded_gpu_s; else summary.json's `gangs`; else every
//           *.json in it with a top-level stranded_gpu_s.
// Throws InputError naming the file (and line) when nothing usable is found or a value is malformed.
// In a directory's *.json scan, a file that is empty, unreadable or not JSON is skipped with one line in
// `warnings` ("FILE: skipped (WHY)") instead of refusing the folder.
std::vector<GangIncident> read_gang_incidents(const std::string& path, std::vector<std::string>* warnings = nullptr);

std::string render_cost_text(const CostResult& result);
nlohmann::json cost_to_json(const CostResult& result);

}  // namespace placebench::harness::decisions
