// Shared option groups (see options.h).
#include "placebench/harness/cli/options.h"

namespace placebench::harness {

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
      ->check(CLI::PositiveNumber)
      ->default_val(1);
  cmd->add_option("--remote-node", request.remote_node,
                  "Use this NUMA node as the remote side (default: the farthest from the device)")
      ->type_name("N");
  cmd->add_flag("--allow-degenerate", request.allow_degenerate,
                "Run arms this node cannot realise (e.g. remote on one NUMA node), marked degenerate");
}

}  // namespace placebench::harness
