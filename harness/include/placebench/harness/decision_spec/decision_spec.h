// A workload class's `decision` block, typed, with its one parser and its writer: below the runner, which
// parses a config's block at load and keeps it typed (ClassConfig::decision), writes run.json's copy from
// it and reads the copy back through the same parser; `decide` takes the typed spec from the config.
#pragma once
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace YAML {
class Node;
}
namespace placebench::harness::detail {
struct LocatedJson;  // yaml_check.h
}

namespace placebench::harness::decisions {

enum class Policy { kStrict, kPrefer, kAny };
inline constexpr std::array<Policy, 3> kPolicies{Policy::kStrict, Policy::kPrefer, Policy::kAny};
std::string_view policy_name(Policy policy);

// score = turnaround_weight x turnaround + (1 - turnaround_weight) x exec = exec + turnaround_weight x queue;
// "turnaround" is weight 1, "efficiency" (GPU-time per job, = GPUs x exec) weight 0.
struct Objective {
  double turnaround_weight = 1.0;
  std::string label = "turnaround";
};
// "turnaround", "efficiency" or a number in [0, 1]; throws InputError naming `where`.
Objective parse_objective(const std::string& text, const std::string& where);

// A workload class's `decision` block:
//   decision: {job_length: 2h, gpus_per_job: 8, queue: {strict: 30m, prefer: 10m, any: 5m},
//              objective: turnaround | efficiency | 0.5, rate_per_gpu_hour: 2.5,
//              p_remote_any: 1.0, p_local_prefer: 0.5, any_arm: remote, under_load: worst | 0.3}
// job_length, gpus_per_job and queue are required; durations are strings ("90s", "36m", "2h") or numbers of
// seconds. Unknown keys are errors.
// How `decide` weighs a class run under interference conditions (issue 32; docs/decisions.md#under-load):
// quiet (the class's first condition, as without the key), worst (the condition whose `any` arm costs
// most against local), or a share of time under load (the worst loaded condition, weighted by `share`,
// the first condition by 1 - share).
struct UnderLoad {
  enum class Mode { kQuiet, kWorst, kShare };
  Mode mode = Mode::kQuiet;
  double share = 0.0;
};

// decide --under-load: quiet, worst, or the share of time under load (a decimal number in [0, 1]); InputError
// naming `where` otherwise.
UnderLoad parse_under_load(const std::string& text, const std::string& where);

struct DecisionSpec {
  double job_length_s = 0.0;
  int gpus_per_job = 1;
  std::array<double, 3> queue_s{};  // indexed by Policy
  Objective objective;
  std::optional<double> rate_per_gpu_hour, p_remote_any, p_local_prefer;
  std::string any_arm = "remote";
  std::optional<UnderLoad> under_load;  // absent: the class's first condition (run.json's copy has no key)
};

// One parser for the block in either format: it reads the block as JSON (run.json keeps it so, and
// `decide` reads it from there), and a YAML block is that JSON with its lines kept, so a config is
// checked exactly as `decide` will read its copy.
// `where` names the block in messages, e.g. "results/x/run.json: config.classes[0].decision".
DecisionSpec parse_decision_json(const nlohmann::json& block, const std::string& where);
// A config's block (detail::yaml_to_located_json): messages name file:line and the key ("decision.queue").
DecisionSpec parse_decision_yaml(const detail::LocatedJson& block, const std::string& file);
DecisionSpec parse_decision_yaml(const YAML::Node& block, const std::string& file);

// run.json's copy of the block: every key, defaults filled in, durations in seconds (as the rest of the
// config copy), the objective by its name or its weight; parse_decision_json gives the same spec back.
nlohmann::json decision_to_json(const DecisionSpec& spec);

}  // namespace placebench::harness::decisions
