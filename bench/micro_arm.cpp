// Resolution of placebench-micro's arm (see micro_arm.h).
#include "micro_arm.h"

#include <cstdlib>

#include "placebench/harness/topology/inventory.h"

namespace placebench::micro {

const std::optional<harness::ArmPlan>& micro_arm_plan() {
  static const std::optional<harness::ArmPlan> plan = []() -> std::optional<harness::ArmPlan> {
    const char* arm = std::getenv("PLACEBENCH_MICRO_ARM");
    if (!arm || !*arm) return std::nullopt;
    harness::Inventory inv = harness::build_inventory(harness::Topology::load_live());
    harness::PlanRequest req;
    req.arms = harness::parse_arm_list(arm, "--arm");
    if (const char* n = std::getenv("PLACEBENCH_MICRO_DEVICE_NUMA")) req.device.device_numa = std::atoi(n);
    req.allow_degenerate = true;
    return harness::plan_arms(inv, req).front();
  }();
  return plan;
}

std::string micro_arm_name() {
  const auto& plan = micro_arm_plan();
  return plan ? harness::arm_name(plan->arm) : "none";
}

}  // namespace placebench::micro
