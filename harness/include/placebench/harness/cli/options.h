// Option groups shared by several subcommands, so each is spelled and documented once.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "placebench/harness/placement/plan.h"

namespace placebench::harness {

// --gpu I | --device-numa N
void add_device_options(CLI::App* cmd, DeviceSelector& device);

// --cpus-per-worker K, --remote-node N, --allow-degenerate
void add_placement_options(CLI::App* cmd, PlanRequest& request);

}  // namespace placebench::harness
