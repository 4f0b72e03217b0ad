// Human-readable inventory: summary, NUMA nodes, distances, GPUs, a GPU x NUMA affinity matrix in the
// spirit of `nvidia-smi topo -m`, NICs, the allowed sets and every note.
#include <fmt/format.h>

#include "placebench/harness/topology/inventory_format.h"

namespace placebench::harness {
namespace {

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

std::string node_or_dash(int node) { return node < 0 ? "-" : std::to_string(node); }

void numa_section(const Inventory& inv, std::string& out) {
  out += fmt::format("\n{:<10} {:<24} {:>12}\n", "NUMA node", "CPUs", "Memory");
  for (const auto& n : inv.numa_nodes) out += fmt::format("{:<10} {:<24} {:>12}\n", n.os_index, n.cpus, gib(n.memory_bytes));
  if (!inv.distances) {
    out += "\nNUMA distances: not reported by this topology\n";
    return;
  }
  out += fmt::format("\n{:<10}", "Distances");
  for (const auto& n : inv.numa_nodes) out += fmt::format(" {:>5}", fmt::format("N{}", n.os_index));
  out += '\n';
  for (size_t i = 0; i < inv.numa_nodes.size(); ++i) {
    out += fmt::format("{:<10}", fmt::format("N{}", inv.numa_nodes[i].os_index));
    for (auto d : (*inv.distances)[i]) out += fmt::format(" {:>5}", d);
    out += '\n';
  }
}

void gpu_section(const Inventory& inv, std::string& out) {
  if (inv.gpus.empty()) {
    out += "\nGPUs: none found\n";
    return;
  }
  out += fmt::format("\n{:<4} {:<32} {:<14} {:>4}  {}\n", "GPU", "Name", "PCI bus id", "NUMA", "Local CPUs");
  for (const auto& g : inv.gpus)
    out += fmt::format("{:<4} {:<32} {:<14} {:>4}  {}\n", g.index, g.name, g.pci_bus_id.empty() ? "-" : g.pci_bus_id,
                       node_or_dash(g.numa_node), g.local_cpus);
  // Affinity matrix: X where the GPU sits on that NUMA node.
  out += fmt::format("\n{:<8}", "Affinity");
  for (const auto& n : inv.numa_nodes) out += fmt::format(" {:>4}", fmt::format("N{}", n.os_index));
  out += fmt::format("  {:<20} {}\n", "CPU Affinity", "NUMA Affinity");
  for (const auto& g : inv.gpus) {
    out += fmt::format("{:<8}", fmt::format("GPU{}", g.index));
    for (const auto& n : inv.numa_nodes)
      out += fmt::format(" {:>4}", static_cast<int>(n.os_index) == g.numa_node ? "X" : ".");
    out += fmt::format("  {:<20} {}\n", g.local_cpus, node_or_dash(g.numa_node));
  }
}

void nic_section(const Inventory& inv, std::string& out) {
  if (inv.nics.empty()) {
    out += "\nNICs: none found\n";
    return;
  }
  out += fmt::format("\n{:<12} {:<12} {:<14} {:>4}\n", "NIC", "Kind", "PCI bus id", "NUMA");
  for (const auto& n : inv.nics)
    out += fmt::format("{:<12} {:<12} {:<14} {:>4}\n", n.name, n.kind, n.pci_bus_id.empty() ? "-" : n.pci_bus_id,
                       node_or_dash(n.numa_node));
}

}  // namespace

std::string render_inventory_table(const Inventory& inv) {
  std::string out = fmt::format("Topology: {}{}\n", inv.source, inv.host.empty() ? "" : "  (host " + inv.host + ")");
  out += fmt::format("Packages: {}   NUMA nodes: {}   Cores: {}   PUs: {}   GPUs: {}   NICs: {}\n", inv.packages.size(),
                     inv.numa_nodes.size(), inv.cores, inv.pus, inv.gpus.size(), inv.nics.size());
  numa_section(inv, out);
  gpu_section(inv, out);
  nic_section(inv, out);
  out += fmt::format("\nAllowed for this process: CPUs {}   memory nodes {}\n", inv.allowed_cpus.empty() ? "-" : inv.allowed_cpus,
                     inv.allowed_mems.empty() ? "-" : inv.allowed_mems);
  std::vector<std::string> notes = inv.notes;
  for (const auto& g : inv.gpus)
    for (const auto& n : g.notes) notes.push_back(fmt::format("GPU {}: {}", g.index, n));
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : notes) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace placebench::harness
