// Which GPUs a workload has, or why that is not known. Two steps, each a pure function tested on a CPU:
//  1. What the node says about its GPUs' UUIDs: /proc/driver/nvidia/gpus/<bus>/information (the driver's
//     "GPU UUID:" and "Bus Location:" lines), hwloc's NVML OS devices (the NVIDIAUUID info attribute) and
//     NVML itself (loaded at run time), each UUID mapped to a PCI bus id (read_node_gpu_ids).
//  2. What the process's variables select (resolve_workload_gpus): NVIDIA_VISIBLE_DEVICES, which the
//     container toolkit reads to inject GPUs (UUIDs GPU-... and MIG-..., node indices, "all", "none",
//     "void"), then CUDA_VISIBLE_DEVICES, whose indices count the GPUs the container sees (index 0 is the
//     first visible GPU, not the node's GPU 0) and whose UUIDs may be prefixes, as CUDA accepts them.
// A GPU that cannot be identified is kept, unknown, with the reason: an audit never judges a GPU it
// could not name, and never passes with one (docs/audit.md).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/topology/inventory.h"

namespace placebench::harness {

// One GPU of the node as one source identifies it.
struct NodeGpuId {
  std::string uuid;        // "GPU-8f2a1c3e-...", as the driver prints it
  std::string pci_bus_id;  // "0000:17:00.0" (normalised)
  std::string source;      // the file, "hwloc NVIDIAUUID (nvml0)" or "NVML"
};

// A MIG device and the GPU it is part of (NVML only: neither /proc nor hwloc lists MIG devices).
struct NodeMigId {
  std::string uuid;         // "MIG-..."
  std::string parent_uuid;  // "GPU-..."
};

struct NodeGpuIds {
  std::vector<NodeGpuId> gpus;
  std::vector<NodeMigId> migs;
  std::vector<std::string> sources;  // what each source gave, in words ("NVML: cannot load ...")
};

// The GPU UUID and bus location of one /proc/driver/nvidia/gpus/<bus>/information file; nullopt when the
// file has no "GPU UUID:" line or it is not a UUID (the driver prints "GPU UUID: ???..." for a GPU it
// cannot query). bus_from_path: the directory's name, used when "Bus Location:" is absent.
std::optional<NodeGpuId> parse_nvidia_gpu_information(const std::string& text, const std::string& bus_from_path,
                                                       const std::string& source);

// The UUIDs of every source: <proc_root>/driver/nvidia/gpus/*/information, the inventory's GPUs (hwloc's
// NVIDIAUUID, GpuInfo::uuid), and NVML when use_nvml (libnvidia-ml.so.1 loaded with dlopen; absent on a
// node without the driver, which sources then says).
NodeGpuIds read_node_gpu_ids(const std::string& proc_root, const std::vector<GpuInfo>& node_gpus, bool use_nvml);

// NVML's GPUs and MIG devices (dlopen); appends to ids, and a line to ids.sources saying what it found.
void add_nvml_gpu_ids(NodeGpuIds& ids, const std::string& library = "libnvidia-ml.so.1");

// One GPU the workload has, as its CUDA numbers it.
struct WorkloadGpu {
  int index = 0;               // the index CUDA gives it inside the process
  std::string named;           // how the variables name it ("GPU-cccc...", "2", "MIG-...", "all")
  std::optional<GpuInfo> gpu;  // the node's GPU, when identified
  std::string uuid;            // when known
  std::string how;             // how it was identified, in words
  std::string unknown_reason;  // why it was not ("" when identified)
};

struct WorkloadGpus {
  std::vector<WorkloadGpu> gpus;
  std::string no_gpu_reason;        // set when the variables give the process no GPU ("NVIDIA_VISIBLE_DEVICES=none")
  std::vector<std::string> notes;
};

// node_gpus: the node's GPUs in PCI bus order (build_inventory's, index = that order, which is also
// NVML's and the container toolkit's index). nvidia_visible / cuda_visible: the process's variables
// (nullopt when unset). cuda_device_order: CUDA_DEVICE_ORDER; unless it is PCI_BUS_ID, CUDA numbers GPUs
// fastest first, so an index over GPUs of different models is unknown (one model: PCI bus order).
// Two GPU or MIG UUIDs name the same device (the driver prints hex in either case); "" matches nothing.
bool same_gpu_uuid(const std::string& a, const std::string& b);

WorkloadGpus resolve_workload_gpus(const std::vector<GpuInfo>& node_gpus, const NodeGpuIds& ids,
                                   const std::optional<std::string>& nvidia_visible,
                                   const std::optional<std::string>& cuda_visible,
                                   const std::optional<std::string>& cuda_device_order = std::nullopt);

}  // namespace placebench::harness
