// JSON printer of the inventory; field names are documented in docs/cli.md (topo --json).
#include <nlohmann/json.hpp>

#include "placebench/harness/topology/inventory_format.h"

namespace placebench::harness {

nlohmann::json inventory_to_json(const Inventory& inv) {
  using nlohmann::json;
  json j;
  j["schema_version"] = inv.schema_version;
  j["source"] = inv.source;
  j["host"] = inv.host;
  j["packages"] = json::array();
  for (const auto& p : inv.packages) j["packages"].push_back({{"os_index", p.os_index}, {"cpus", p.cpus}});
  j["numa_nodes"] = json::array();
  for (const auto& n : inv.numa_nodes)
    j["numa_nodes"].push_back({{"os_index", n.os_index}, {"cpus", n.cpus}, {"memory_bytes", n.memory_bytes}});
  j["distances"] = inv.distances ? json(*inv.distances) : json(nullptr);
  j["cores"] = inv.cores;
  j["pus"] = inv.pus;
  j["gpus"] = json::array();
  auto gpu_json = [](const GpuInfo& g) {
    json e{{"index", g.index},
           {"name", g.name},
           {"pci_bus_id", g.pci_bus_id},
           {"numa_node", g.numa_node < 0 ? json(nullptr) : json(g.numa_node)},
           {"local_cpus", g.local_cpus},
           {"os_devices", g.os_devices},
           {"notes", g.notes}};
    if (g.pci_index >= 0) e["pci_index"] = g.pci_index;  // live nodes: hwloc's index beside CUDA's
    return e;
  };
  for (const auto& g : inv.gpus) j["gpus"].push_back(gpu_json(g));
  if (!inv.hidden_gpus.empty()) {
    j["hidden_gpus"] = json::array();
    for (const auto& g : inv.hidden_gpus) j["hidden_gpus"].push_back(gpu_json(g));
  }
  j["nics"] = json::array();
  for (const auto& n : inv.nics)
    j["nics"].push_back({{"name", n.name},
                         {"kind", n.kind},
                         {"pci_bus_id", n.pci_bus_id},
                         {"numa_node", n.numa_node < 0 ? json(nullptr) : json(n.numa_node)}});
  j["allowed"] = {{"cpus", inv.allowed_cpus}, {"mems", inv.allowed_mems}};
  j["notes"] = inv.notes;
  return j;
}

}  // namespace placebench::harness
