// Live cross-checks of the inventory against sysfs, the CUDA runtime and the process's own limits.
#include <unistd.h>

#include <fstream>
#include <cstdlib>

#include "placebench/harness/evidence.h"
#include "placebench/harness/topology/gpu_mapping.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"

namespace placebench::harness {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

// sysfs writes local_cpulist over all possible CPUs; compare as sets, not strings.
bool same_cpus(const std::string& a, const std::string& b) { return hostpipe::same_cpulist(a, b); }

void check_sysfs(GpuInfo& gpu, const std::string& sysfs_root) {
  if (gpu.pci_bus_id.empty()) return;
  std::string dir = sysfs_root + "/bus/pci/devices/" + gpu.pci_bus_id;
  std::string node_text = read_line(dir + "/numa_node");
  if (node_text.empty()) {
    gpu.notes.push_back("sysfs has no " + dir + "/numa_node");
    return;
  }
  // sysfs writes a small integer (-1 when the firmware gives no proximity); anything else is noted, not trusted.
  char* end = nullptr;
  long parsed = std::strtol(node_text.c_str(), &end, 10);
  if (end == node_text.c_str() || *end != '\0' || parsed < -1 || parsed > 4095) {
    gpu.notes.push_back("sysfs " + dir + "/numa_node holds '" + node_text + "', not a NUMA node; hwloc says " +
                        std::to_string(gpu.numa_node));
    return;
  }
  int sysfs_node = static_cast<int>(parsed);
  if (sysfs_node < 0) {
    gpu.notes.push_back("sysfs numa_node is -1 (firmware gives no PCIe proximity); hwloc says " +
                        std::to_string(gpu.numa_node));
  } else if (sysfs_node != gpu.numa_node) {
    gpu.notes.push_back("sysfs numa_node is " + std::to_string(sysfs_node) + ", hwloc says " +
                        std::to_string(gpu.numa_node) + "; using sysfs");
    gpu.numa_node = sysfs_node;
  }
  std::string cpus = read_line(dir + "/local_cpulist");
  if (!cpus.empty() && !same_cpus(cpus, gpu.local_cpus))
    gpu.notes.push_back("sysfs local_cpulist is " + cpus + ", hwloc says " + gpu.local_cpus);
}

}  // namespace

void cross_check_live(Inventory& inv, const kernels::DeviceRuntime& runtime, const std::string& sysfs_root) {
  inv.host = local_host_name();
  for (GpuInfo& gpu : inv.gpus) check_sysfs(gpu, sysfs_root);

  const char* visible_env = std::getenv("CUDA_VISIBLE_DEVICES");
  GpuMapping m = map_visible_gpus(inv.gpus, runtime, visible_env ? std::optional<std::string>(visible_env) : std::nullopt);
  if (!runtime.usable() && !inv.gpus.empty())
    inv.notes.push_back("CUDA runtime: " + runtime.status + "; GPU indices follow PCI bus order");
  inv.gpus = std::move(m.visible);
  inv.hidden_gpus = std::move(m.hidden);
  for (std::string& n : m.notes) inv.notes.push_back(std::move(n));

  hostpipe::AllowedSets allowed = hostpipe::read_allowed_sets();
  inv.allowed_cpus = hostpipe::format_cpulist(allowed.cpus);
  inv.allowed_mems = hostpipe::format_cpulist(allowed.mems);
}

}  // namespace placebench::harness
