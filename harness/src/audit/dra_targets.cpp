// The container's DRA GPUs as audit targets (see dra.h): judged like the GPUs its variables give it.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "placebench/harness/audit/dra.h"

namespace placebench::harness {
namespace {

bool same_uuid(const std::string& a, const std::string& b) { return same_gpu_uuid(a, b); }

const GpuInfo* topology_gpu(const Inventory& inv, const DraGpu& g) {
  for (const auto* list : {&inv.gpus, &inv.hidden_gpus})
    for (const GpuInfo& gpu : *list)
      if ((!g.pci_bus_id.empty() && gpu.pci_bus_id == g.pci_bus_id) || same_uuid(g.uuid, gpu.uuid)) return &gpu;
  return nullptr;
}

AuditTarget dra_target(const Inventory& inv, const DraGpu& g, const std::string& label) {
  AuditTarget t{label, -1, g.pci_bus_id, "", -1, "dra"};
  t.uuid = g.uuid;
  if (!g.problem.empty()) {
    t.unknown_reason = g.problem;
    return t;
  }
  if (const GpuInfo* gpu = topology_gpu(inv, g)) {
    t.pci_bus_id = gpu->pci_bus_id;
    t.name = gpu->name;
    t.numa_node = gpu->numa_node >= 0 ? gpu->numa_node : g.numa_node.value_or(-1);
    t.how = fmt::format("{} names {} ({}); the topology's GPU there", g.source, g.pci_bus_id.empty() ? g.uuid : g.pci_bus_id, g.device);
    return t;
  }
  if (g.numa_node) {
    t.numa_node = *g.numa_node;
    t.how = fmt::format("the numaNode attribute of {} ({}); the topology has no GPU {}", g.device, g.source,
                        g.pci_bus_id.empty() ? "with UUID " + g.uuid : "at " + g.pci_bus_id);
    return t;
  }
  t.unknown_reason = fmt::format("{} ({}) has no numaNode attribute and the topology has no GPU {}", g.device, g.source,
                                 g.pci_bus_id.empty() ? "with UUID " + (g.uuid.empty() ? std::string("-") : g.uuid) : "at " + g.pci_bus_id);
  return t;
}

}  // namespace

void add_dra_targets(AuditObservation& o, const std::vector<DraGpu>& mine) {
  if (std::any_of(o.targets.begin(), o.targets.end(), [](const AuditTarget& t) { return t.source == "device"; })) return;
  for (const DraGpu& g : mine) {
    const std::string label = fmt::format("DRA GPU {} (claim {})", g.device, g.claim);
    auto same = std::find_if(o.targets.begin(), o.targets.end(), [&](const AuditTarget& t) {
      return (!g.pci_bus_id.empty() && t.pci_bus_id == g.pci_bus_id) || same_uuid(g.uuid, t.uuid);
    });
    if (same != o.targets.end()) {
      same->how += (same->how.empty() ? "" : "; ") + label + " is this GPU (" + g.source + ")";
      continue;
    }
    o.targets.push_back(dra_target(o.inventory, g, label));
  }
}

}  // namespace placebench::harness
