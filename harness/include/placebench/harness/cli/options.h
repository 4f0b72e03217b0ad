// Option groups shared by several subcommands, so each is spelled and documented once.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "placebench/harness/placement/plan.h"

namespace placebench::harness {

// CLI11's PositiveNumber / NonNegativeNumber (same help text, POSITIVE / NONNEGATIVE) with messages a
// person can act on: theirs print the accepted range up to DBL_MAX, 300 digits long.
const CLI::Validator& positive_number();
const CLI::Validator& non_negative_number();

// --gpu I | --device-numa N
void add_device_options(CLI::App* cmd, DeviceSelector& device);

// --cpus-per-worker K, --remote-node N, --allow-degenerate
void add_placement_options(CLI::App* cmd, PlanRequest& request);

}  // namespace placebench::harness
