// Which of hwloc's GPUs this process's CUDA sees, and under which CUDA index. CUDA_VISIBLE_DEVICES,
// Slurm's --gpus-per-task and Kubernetes device plugins hide GPUs and renumber the rest from 0, so
// hwloc's PCI-order index and CUDA's differ; both are recorded and only the visible GPUs are chosen.
// A pure function (no CUDA, no environment) so every case is tested on a CPU.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/topology/inventory.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {

struct GpuMapping {
  std::vector<GpuInfo> visible;  // sorted by CUDA index (index), pci_index = hwloc's index
  std::vector<GpuInfo> hidden;   // hwloc's GPUs that CUDA does not see (index = pci_index = hwloc's)
  std::vector<std::string> notes;
};

// hwloc_gpus: build_inventory's GPUs (index = hwloc's order). runtime: the CUDA runtime's devices,
// matched by PCI bus id when it is usable. Without a usable runtime, cuda_visible_devices (the
// variable's value, nullopt when unset) decides: a list of indices selects hwloc's GPUs in that
// order (CUDA stops at the first invalid one); "" or "-1" hides all; UUIDs or MIG names cannot be
// matched without the runtime, so every GPU stays (with a note).
GpuMapping map_visible_gpus(const std::vector<GpuInfo>& hwloc_gpus, const kernels::DeviceRuntime& runtime,
                            const std::optional<std::string>& cuda_visible_devices);

}  // namespace placebench::harness
