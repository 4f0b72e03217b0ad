// Shared option groups (see options.h).
#include "placebench/harness/cli/options.h"

#include <cmath>

namespace placebench::harness {
namespace {

CLI::Validator number_at_least_zero(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        double v = 0;
        std::size_t used = 0;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || std::isnan(v)) return "'" + text + "' is not a number";
        if (zero_allowed ? v < 0 : v <= 0) return std::string("must be ") + (zero_allowed ? "0 or more" : "more than 0") + ", got " + text;
        return {};
      },
      zero_allowed ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

const CLI::Validator& positive_number() {
  static const CLI::Validator v = number_at_least_zero(false);
  return v;
}

const CLI::Validator& non_negative_number() {
  static const CLI::Validator v = number_at_least_zero(true);
  return v;
}

void add_device_options(CLI::App* cmd, DeviceSelector& device) {
  auto* gpu = cmd->add_option("--gpu", device.gpu, "The GPU the worker drives (default: GPU 0 when there is one)")
                  ->type_name("I");
  auto* numa = cmd->add_option("--device-numa", device.device_numa,
                               "CPU-only node: the NUMA node that plays the device (default: the first node)")
                   ->type_name("N");
  gpu->excludes(numa);
}

void add_placement_options(CLI::App* cmd, PlanRequest& request) {
  cmd->add_option("--cpus-per-worker", request.cpus_per_worker, "CPUs each worker is bound to")
      ->type_name("K")
      ->check(positive_number())
      ->default_val(1);
  cmd->add_option("--remote-node", request.remote_node,
                  "Use this NUMA node as the remote side (default: the farthest from the device)")
      ->type_name("N");
  cmd->add_flag("--allow-degenerate", request.allow_degenerate,
                "Run arms this node cannot realise (e.g. remote on one NUMA node), marked degenerate");
}

}  // namespace placebench::harness
