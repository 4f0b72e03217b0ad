// The placement arm placebench-micro runs under (--arm / PLACEBENCH_MICRO_ARM, relative to
// --device-numa / PLACEBENCH_MICRO_DEVICE_NUMA), resolved once and shared by main and the benchmarks.
#pragma once
#include <optional>
#include <string>

#include "placebench/harness/placement/plan.h"

namespace placebench::micro {

// nullopt when no arm was asked for. Throws (InputError and the like) when it cannot be planned.
const std::optional<harness::ArmPlan>& micro_arm_plan();

// The arm's name, or "none".
std::string micro_arm_name();

}  // namespace placebench::micro
