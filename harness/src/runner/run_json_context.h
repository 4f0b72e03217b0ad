// The context block of run.json (internal to the runner; hostpipe/sysmetrics adds the node's state).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/runner/config.h"
#include "placebench/harness/topology/inventory.h"

namespace placebench::harness::detail {

nlohmann::json make_run_context(const ExperimentConfig& config, const Inventory& inv, const std::string& command_line);

}  // namespace placebench::harness::detail
