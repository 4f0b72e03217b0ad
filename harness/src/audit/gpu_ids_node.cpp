// What the node says about its GPUs' UUIDs (see gpu_identity.h): the NVIDIA driver's
// /proc/driver/nvidia/gpus/<bus>/information ("GPU UUID: \t GPU-...", "Bus Location: \t 0000:17:00.0",
// one "Key: value" a line, as nvidia.ko's procfs writes it) and hwloc's NVIDIAUUID info attributes.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "placebench/harness/audit/gpu_identity.h"
#include "placebench/hostpipe/process_placement.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

namespace fs = std::filesystem;

std::string trimmed(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

bool is_gpu_uuid(const std::string& s) {
  static const std::regex kUuid("GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  return std::regex_match(s, kUuid);
}

bool is_pci_bus_id(const std::string& s) {
  static const std::regex kBus("([0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
  return std::regex_match(s, kBus);
}

}  // namespace

std::optional<NodeGpuId> parse_nvidia_gpu_information(const std::string& text, const std::string& bus_from_path,
                                                       const std::string& source) {
  NodeGpuId id;
  id.source = source;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trimmed(line.substr(0, colon)), value = trimmed(line.substr(colon + 1));
    if (key == "GPU UUID") id.uuid = value;
    if (key == "Bus Location") id.pci_bus_id = value;
  }
  if (!is_gpu_uuid(id.uuid)) return std::nullopt;
  if (!is_pci_bus_id(id.pci_bus_id)) id.pci_bus_id = bus_from_path;
  if (!is_pci_bus_id(id.pci_bus_id)) return std::nullopt;
  id.pci_bus_id = kernels::normalize_pci_bus_id(id.pci_bus_id);
  return id;
}

namespace {

void add_proc_driver_ids(NodeGpuIds& ids, const std::string& proc_root) {
  const std::string dir = proc_root + "/driver/nvidia/gpus";
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  if (ec) {
    ids.sources.push_back(dir + ": not present (no NVIDIA driver loaded, or not mounted in this container)");
    return;
  }
  std::sort(entries.begin(), entries.end());
  std::size_t found = 0;
  for (const fs::path& p : entries) {
    const std::string path = p.string() + "/information";
    std::string problem;
    std::optional<std::string> text = hostpipe::read_proc_text(path, hostpipe::kMaxProcTextBytes, &problem);
    std::optional<NodeGpuId> id = text ? parse_nvidia_gpu_information(*text, p.filename().string(), path) : std::nullopt;
    if (!id) {
      ids.sources.push_back(text ? path + ": no GPU UUID line with a UUID (the driver has not read it yet?)" : problem);
      continue;
    }
    ids.gpus.push_back(*id);
    ++found;
  }
  ids.sources.push_back(dir + ": " + std::to_string(found) + " GPU UUID(s)");
}

void add_hwloc_ids(NodeGpuIds& ids, const std::vector<GpuInfo>& node_gpus) {
  std::size_t found = 0;
  for (const GpuInfo& g : node_gpus) {
    if (g.uuid.empty() || g.pci_bus_id.empty()) continue;
    std::string osdev;
    for (const std::string& d : g.os_devices)
      if (d.rfind("nvml", 0) == 0) osdev = d;
    ids.gpus.push_back({g.uuid, kernels::normalize_pci_bus_id(g.pci_bus_id), "hwloc NVIDIAUUID (" + osdev + ")"});
    ++found;
  }
  ids.sources.push_back("the topology's NVIDIAUUID attributes: " + std::to_string(found) + " GPU UUID(s)");
}

}  // namespace

NodeGpuIds read_node_gpu_ids(const std::string& proc_root, const std::vector<GpuInfo>& node_gpus, bool use_nvml) {
  NodeGpuIds ids;
  add_proc_driver_ids(ids, proc_root);
  add_hwloc_ids(ids, node_gpus);
  if (use_nvml) add_nvml_gpu_ids(ids);
  return ids;
}

}  // namespace placebench::harness
