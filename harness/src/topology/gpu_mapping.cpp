// hwloc's GPUs -> the ones CUDA sees, with both indices (see gpu_mapping.h).
#include "placebench/harness/topology/gpu_mapping.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace placebench::harness {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  return out;
}

std::optional<int> parse_index(const std::string& token) {
  if (token.empty() || token.size() > 6) return std::nullopt;
  for (char c : token)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoi(token);
}

GpuMapping by_runtime(std::vector<GpuInfo> gpus, const std::vector<kernels::CudaDevice>& devices) {
  GpuMapping m;
  std::set<std::string> matched;
  for (const kernels::CudaDevice& dev : devices) {
    auto it = std::find_if(gpus.begin(), gpus.end(), [&](const GpuInfo& g) { return g.pci_bus_id == dev.pci_bus_id; });
    if (it == gpus.end()) {
      m.notes.push_back("CUDA device " + std::to_string(dev.index) + " (" + dev.name + ", " + dev.pci_bus_id +
                        ") is not in hwloc's topology");
      continue;
    }
    matched.insert(dev.pci_bus_id);
    GpuInfo g = *it;
    if (g.pci_index != dev.index)
      g.notes.push_back("CUDA index is " + std::to_string(dev.index) + " (PCI order gave " + std::to_string(g.pci_index) + ")");
    g.index = dev.index;
    g.name = dev.name;
    m.visible.push_back(std::move(g));
  }
  for (const GpuInfo& g : gpus)
    if (!matched.count(g.pci_bus_id)) {
      m.hidden.push_back(g);
      m.notes.push_back("GPU at " + g.pci_bus_id + " (PCI order " + std::to_string(g.pci_index) +
                        ") is in hwloc's topology but not visible to CUDA (CUDA_VISIBLE_DEVICES, or no driver for it)");
    }
  return m;
}

GpuMapping by_variable(std::vector<GpuInfo> gpus, const std::string& value) {
  GpuMapping m;
  std::vector<std::string> tokens = split_list(value);
  std::vector<bool> taken(gpus.size(), false);
  bool indices = std::all_of(tokens.begin(), tokens.end(), [](const std::string& t) { return parse_index(t) || t == "-1"; });
  if (!indices && !(tokens.size() == 1 && tokens[0].empty())) {
    m.visible = std::move(gpus);
    m.notes.push_back("CUDA_VISIBLE_DEVICES=" + value + " names devices by UUID or MIG name, which only the CUDA runtime "
                      "can match; GPU indices follow PCI bus order");
    return m;
  }
  for (const std::string& t : tokens) {
    std::optional<int> i = parse_index(t);
    if (!i || *i >= static_cast<int>(gpus.size()) || taken[static_cast<std::size_t>(*i)]) break;  // CUDA stops here
    taken[static_cast<std::size_t>(*i)] = true;
    GpuInfo g = gpus[static_cast<std::size_t>(*i)];
    g.index = static_cast<int>(m.visible.size());
    if (g.index != g.pci_index)
      g.notes.push_back("CUDA index " + std::to_string(g.index) + " from CUDA_VISIBLE_DEVICES (PCI order gave " +
                        std::to_string(g.pci_index) + ")");
    m.visible.push_back(std::move(g));
  }
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (!taken[i]) m.hidden.push_back(gpus[i]);
  m.notes.push_back("CUDA_VISIBLE_DEVICES=" + value + " without a usable CUDA runtime: assumed to count GPUs in PCI "
                    "bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID)");
  return m;
}

}  // namespace

GpuMapping map_visible_gpus(const std::vector<GpuInfo>& hwloc_gpus, const kernels::DeviceRuntime& runtime,
                            const std::optional<std::string>& cuda_visible_devices) {
  std::vector<GpuInfo> gpus = hwloc_gpus;
  for (GpuInfo& g : gpus) g.pci_index = g.index;
  GpuMapping m;
  if (runtime.usable())
    m = by_runtime(std::move(gpus), runtime.devices);
  else if (cuda_visible_devices)
    m = by_variable(std::move(gpus), *cuda_visible_devices);
  else
    m.visible = std::move(gpus);
  std::sort(m.visible.begin(), m.visible.end(), [](const GpuInfo& a, const GpuInfo& b) { return a.index < b.index; });
  return m;
}

}  // namespace placebench::harness
