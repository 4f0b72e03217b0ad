// Inputs of `placebench decide`: a run directory's summary.json + run.json turned into per-class decisions
// (the `decision` block itself is typed at config load by decision_spec.h, below the runner: ClassConfig::decision).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/decision_spec/decision_spec.h"
#include "placebench/harness/decisions/decide.h"

namespace placebench::harness::decisions {

// Command-line values that override every class's block (and the defaults: p_remote_any 1, p_local_prefer 0.5).
struct DecideOverrides {
  std::optional<double> p_remote_any, p_local_prefer, rate_per_gpu_hour;
  std::optional<Objective> objective;
  std::optional<std::string> any_arm;
  std::optional<UnderLoad> under_load;  // decide --under-load: instead of the decision block's under_load
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
