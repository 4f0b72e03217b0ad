// Comparing an inventory with the expected one (see inventory_diff.h), on the typed Inventory: a topo
// --json file is read by its one reader (inventory_read.h, in inventory_json.cpp).
#include "placebench/harness/topology/inventory_diff.h"

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/topology/inventory_read.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/sysmetrics/proc_readers.h"

namespace placebench::harness {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const char* const kFix = "give a saved hwloc XML (topo --export) or the output of topo --json";

bool same_cpus(const std::string& a, const std::string& b) { return hostpipe::same_cpulist(a, b); }

std::string node_text(int n) { return n < 0 ? std::string("unknown") : std::to_string(n); }

std::vector<GpuInfo> all_gpus(const Inventory& inv) {
  std::vector<GpuInfo> gpus = inv.gpus;
  gpus.insert(gpus.end(), inv.hidden_gpus.begin(), inv.hidden_gpus.end());
  return gpus;
}

std::string gpu_name(const GpuInfo& g) {
  return g.pci_bus_id.empty() ? "GPU " + std::to_string(g.index) : "GPU " + g.pci_bus_id;
}

void diff_nodes(const Inventory& e, const Inventory& a, std::vector<std::string>& out) {
  if (e.numa_nodes.size() != a.numa_nodes.size())
    out.push_back(fmt::format("NUMA nodes: expected {}, found {}", e.numa_nodes.size(), a.numa_nodes.size()));
  if (e.pus != a.pus) out.push_back(fmt::format("CPUs (PUs): expected {}, found {}", e.pus, a.pus));
  if (e.cores != a.cores) out.push_back(fmt::format("cores: expected {}, found {}", e.cores, a.cores));
  for (const NumaNodeInfo& en : e.numa_nodes) {
    auto it = std::find_if(a.numa_nodes.begin(), a.numa_nodes.end(), [&](const NumaNodeInfo& n) { return n.os_index == en.os_index; });
    if (it == a.numa_nodes.end()) out.push_back(fmt::format("NUMA node {}: missing", en.os_index));
    else if (!same_cpus(en.cpus, it->cpus)) out.push_back(fmt::format("NUMA node {}: CPUs expected {}, found {}", en.os_index, en.cpus, it->cpus));
  }
  if (e.distances.has_value() != a.distances.has_value()) {
    out.push_back(fmt::format("distances: expected {}, found {}", e.distances ? "a matrix" : "none", a.distances ? "a matrix" : "none"));
  } else if (e.distances && e.numa_nodes.size() == a.numa_nodes.size()) {
    const std::size_t n = e.numa_nodes.size();  // rows beyond the nodes have no node to name
    for (std::size_t i = 0; i < e.distances->size() && i < a.distances->size() && i < n; ++i)
      for (std::size_t k = 0; k < (*e.distances)[i].size() && k < (*a.distances)[i].size() && k < n; ++k)
        if ((*e.distances)[i][k] != (*a.distances)[i][k])
          out.push_back(fmt::format("distance node {} -> node {}: expected {}, found {}", e.numa_nodes[i].os_index,
                                    e.numa_nodes[k].os_index, (*e.distances)[i][k], (*a.distances)[i][k]));
  }
}

void diff_gpus(const Inventory& e, const Inventory& a, std::vector<std::string>& out) {
  std::vector<GpuInfo> expected = all_gpus(e), actual = all_gpus(a);
  std::vector<bool> matched(actual.size(), false);
  for (const GpuInfo& eg : expected) {
    auto same = [&](const GpuInfo& g) {
      return !eg.pci_bus_id.empty() && !g.pci_bus_id.empty()
                 ? normalized_pci_bus_id(g.pci_bus_id) == normalized_pci_bus_id(eg.pci_bus_id)
                 : g.index == eg.index;
    };
    auto it = std::find_if(actual.begin(), actual.end(), same);
    if (it == actual.end()) {
      out.push_back(fmt::format("{} (expected on NUMA node {}): missing", gpu_name(eg), node_text(eg.numa_node)));
      continue;
    }
    matched[static_cast<std::size_t>(it - actual.begin())] = true;
    if (it->numa_node != eg.numa_node)
      out.push_back(fmt::format("{}: NUMA node expected {}, found {}", gpu_name(eg), node_text(eg.numa_node), node_text(it->numa_node)));
    if (!same_cpus(eg.local_cpus, it->local_cpus))
      out.push_back(fmt::format("{}: local CPUs expected {}, found {}", gpu_name(eg), eg.local_cpus, it->local_cpus));
  }
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!matched[i]) out.push_back(fmt::format("{} (NUMA node {}): not expected", gpu_name(actual[i]), node_text(actual[i].numa_node)));
}

void diff_nics(const Inventory& e, const Inventory& a, std::vector<std::string>& out) {
  for (const NicInfo& en : e.nics) {
    auto it = std::find_if(a.nics.begin(), a.nics.end(), [&](const NicInfo& n) { return n.name == en.name; });
    if (it == a.nics.end()) out.push_back(fmt::format("NIC {} (expected on NUMA node {}): missing", en.name, node_text(en.numa_node)));
    else if (it->numa_node != en.numa_node)
      out.push_back(fmt::format("NIC {}: NUMA node expected {}, found {}", en.name, node_text(en.numa_node), node_text(it->numa_node)));
  }
  for (const NicInfo& an : a.nics)
    if (std::none_of(e.nics.begin(), e.nics.end(), [&](const NicInfo& n) { return n.name == an.name; }))
      out.push_back(fmt::format("NIC {} (NUMA node {}): not expected", an.name, node_text(an.numa_node)));
}

}  // namespace

Inventory load_expected_inventory(const std::string& path) {
  std::string text = read_input_file(path, kFix, kMaxConfigBytes);
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '<') return build_inventory(Topology::load_file(path));
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw InputError(path + ": neither hwloc XML nor JSON; " + kFix);
  return inventory_from_json(j, path, kFix);
}

std::vector<std::string> diff_inventories(const Inventory& expected, const Inventory& actual) {
  std::vector<std::string> out;
  diff_nodes(expected, actual, out);
  diff_gpus(expected, actual, out);
  diff_nics(expected, actual, out);
  return out;
}

std::vector<std::string> devices_without_numa_node(const Inventory& inv, bool live, const std::string& sys_root) {
  std::vector<std::string> out;
  if (!live) {
    for (const GpuInfo& g : all_gpus(inv))
      if (g.numa_node < 0) out.push_back(gpu_name(g) + ": no NUMA node in the topology");
    for (const NicInfo& n : inv.nics)
      if (n.numa_node < 0) out.push_back("NIC " + n.name + ": no NUMA node in the topology");
    return out;
  }
  if (inv.numa_nodes.size() < 2) return out;  // one node: -1 is harmless
  std::error_code ec;
  std::vector<std::string> ids;
  for (const fs::directory_entry& e : fs::directory_iterator(sys_root + "/bus/pci/devices", ec)) ids.push_back(e.path().filename().string());
  std::sort(ids.begin(), ids.end());
  for (const std::string& id : ids) {
    const std::string dir = sys_root + "/bus/pci/devices/" + id;
    std::optional<std::string> cls = hostpipe::sysmetrics::read_text_file(dir + "/class");  // "0x030200"
    // Only devices placement is about: network (0x02), display/GPU (0x03), accelerators (0x12).
    if (!cls || cls->size() < 4 || (cls->compare(0, 4, "0x02") != 0 && cls->compare(0, 4, "0x03") != 0 && cls->compare(0, 4, "0x12") != 0))
      continue;
    std::optional<std::string> v = hostpipe::sysmetrics::read_text_file(dir + "/numa_node");
    if (v && v->rfind("-1", 0) == 0)
      out.push_back("PCI device " + id + ": sysfs numa_node is -1 (firmware without PCIe proximity, common in VMs)");
  }
  return out;
}

int report_expected_inventory(const Inventory& actual, bool live, const std::string& expect_path, bool as_json,
                              std::ostream& out) {
  Inventory expected = load_expected_inventory(expect_path);
  std::vector<std::string> differences = diff_inventories(expected, actual);
  std::vector<std::string> no_node = devices_without_numa_node(actual, live);
  if (as_json) {
    json j = {{"schema_version", kInventorySchemaVersion}, {"expected", expect_path}, {"actual", actual.source},
              {"matches", differences.empty()}, {"differences", differences}, {"devices_without_numa_node", no_node}};
    stamp_evidence(j);
    out << j.dump(2) << "\n";
  } else {
    const std::string shown = escape_control(expect_path);
    out << (differences.empty() ? "topology matches " + shown + "\n"
                                : fmt::format("topology differs from {} ({} difference(s)):\n", shown, differences.size()));
    for (const std::string& d : differences) out << "  " << escape_control(d) << "\n";
    for (const std::string& d : no_node) out << "  flag: " << escape_control(d) << "\n";
  }
  return differences.empty() ? kExitOk : kExitFailed;
}

}  // namespace placebench::harness
