// The node inventory: what lstopo, numactl --hardware and nvidia-smi topo -m show, as plain data.
// Built from a Topology; on a live node cross-checked against sysfs and the CUDA runtime.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/topology/topology.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {

inline constexpr int kInventorySchemaVersion = 1;

struct PackageInfo {
  unsigned os_index = 0;
  std::string cpus;  // cpulist
};

struct NumaNodeInfo {
  unsigned os_index = 0;
  std::string cpus;  // cpulist of the PUs local to this node
  std::uint64_t memory_bytes = 0;
};

struct GpuInfo {
  int index = 0;              // CUDA index when known, else NVML index, else PCI bus order
  int pci_index = -1;         // hwloc's (PCI bus order) index, set on a live node once CUDA's is known
  std::string name;
  std::string pci_bus_id;     // "0000:34:00.0", or "" when hwloc has no PCI parent for it
  int numa_node = -1;         // os_index; -1 when hwloc cannot tell
  std::string local_cpus;     // cpulist of the closest non-I/O ancestor
  std::vector<std::string> os_devices;  // hwloc OS device names ("cuda0", "nvml0", ...)
  std::string uuid;           // hwloc's NVIDIAUUID info (on NVML OS devices), "" when absent
  std::vector<std::string> notes;       // disagreements between sources, said plainly
};

struct NicInfo {
  std::string name;           // "eth0", "mlx5_0"
  std::string kind;           // "network" or "openfabrics"
  std::string pci_bus_id;
  int numa_node = -1;
};

struct Inventory {
  int schema_version = kInventorySchemaVersion;
  std::string source;         // "live" or the XML file's path
  std::string host;           // hostname (live), or the HostName recorded in the XML, or ""
  std::vector<PackageInfo> packages;
  std::vector<NumaNodeInfo> numa_nodes;              // sorted by os_index
  std::optional<std::vector<std::vector<std::uint64_t>>> distances;  // [i][j] by numa_nodes order
  unsigned cores = 0;
  unsigned pus = 0;
  std::vector<GpuInfo> gpus;         // on a live node: only the GPUs this process's CUDA sees, by CUDA index
  std::vector<GpuInfo> hidden_gpus;  // in hwloc's topology but hidden from CUDA (CUDA_VISIBLE_DEVICES, ...)
  std::vector<NicInfo> nics;
  std::string allowed_cpus;   // cpulist this process may use (cgroup cpuset); from the XML for files
  std::string allowed_mems;   // NUMA nodes this process may allocate on
  std::vector<std::string> notes;
};

// Whether NVIDIA PCI display controllers (class 0x03xx) with no CUDA/NVML/OpenCL OS device count as GPUs.
// hwloc only creates GPU OS devices when built with its CUDA/NVML plugins (Debian's is not), so on a
// live node they are the only sign of a GPU; in a saved file they are usually cards no driver claims
// (lstopo shows them as plain PCI devices), so they are listed in the notes instead.
enum class PciGpuFallback { kAuto, kOn, kOff };  // kAuto: on for the live machine, off for files

// Reads everything from the topology alone (works on saved files).
Inventory build_inventory(const Topology& topo, PciGpuFallback pci_fallback = PciGpuFallback::kAuto);

// On the live machine: compares each GPU's NUMA node and local CPUs with sysfs
// (<sysfs_root>/bus/pci/devices/<bus id>/numa_node, local_cpulist), matches the CUDA runtime's devices
// by PCI bus id (taking their CUDA index and name), reports GPUs that only one source sees, and
// replaces the allowed sets by the process's own (/proc/self/status). Disagreements become notes.
void cross_check_live(Inventory& inv, const kernels::DeviceRuntime& runtime,
                      const std::string& sysfs_root = "/sys");

}  // namespace placebench::harness
