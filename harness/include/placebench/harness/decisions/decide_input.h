// Inputs of `placebench decide`: a class's `decision` block (from run.json, or from a YAML config for the
// runner's validation) and a run directory's summary.json + run.json turned into per-class decisions.
#pragma once
#include <yaml-cpp/yaml.h>

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/decisions/decide.h"
#include "placebench/harness/yaml_check.h"

namespace placebench::harness::decisions {

// A workload class's `decision` block:
//   decision: {job_length: 2h, gpus_per_job: 8, queue: {strict: 30m, prefer: 10m, any: 5m},
//              objective: turnaround | efficiency | 0.5, rate_per_gpu_hour: 2.5,
//              p_remote_any: 1.0, p_local_prefer: 0.5, any_arm: remote}
// job_length, gpus_per_job and queue are required; durations are strings ("90s", "36m", "2h") or numbers of
// seconds. Unknown keys are errors.
struct DecisionSpec {
  double job_length_s = 0.0;
  int gpus_per_job = 1;
  std::array<double, 3> queue_s{};  // indexed by Policy
  Objective objective;
  std::optional<double> rate_per_gpu_hour, p_remote_any, p_local_prefer;
  std::string any_arm = "remote";
};

// One parser for the block in either format: it reads the block as JSON (run.json keeps it so, and
// `decide` reads it from there), and a YAML block is that JSON with its lines kept, so a config is
// checked exactly as `decide` will read its copy.
// `where` names the block in messages, e.g. "results/x/run.json: config.classes[0].decision".
DecisionSpec parse_decision_json(const nlohmann::json& block, const std::string& where);
// A config's block (detail::yaml_to_located_json): messages name file:line and the key ("decision.queue").
DecisionSpec parse_decision_yaml(const detail::LocatedJson& block, const std::string& file);
DecisionSpec parse_decision_yaml(const YAML::Node& block, const std::string& file);

// Command-line values that override every class's block (and the defaults: p_remote_any 1, p_local_prefer 0.5).
struct DecideOverrides {
  std::optional<double> p_remote_any, p_local_prefer, rate_per_gpu_hour;
  std::optional<Objective> objective;
  std::optional<std::string> any_arm;
};

ClassInput make_class_input(const std::string& name, const DecisionSpec& spec, const RemoteRatio& remote,
                            const DecideOverrides& overrides);

struct DecideReport {
  std::string source;  // the run directory, or "what-if"
  std::vector<ClassDecision> classes;
};

// Reads DIR/summary.json (classes[].{name, baseline, arms[]}) and DIR/run.json (config.classes[].decision).
// A class without a decision block, without local as its baseline or without the `any` arm is reported as
// not decidable with the reason; malformed files are InputError naming the file and key.
DecideReport decide_run_directory(const std::string& dir, const DecideOverrides& overrides);

}  // namespace placebench::harness::decisions
