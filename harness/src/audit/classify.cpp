// Judging a process's CPUs and pages against one device's NUMA node (see audit.h).
#include <algorithm>
#include <fmt/format.h>

#include "placebench/harness/audit/audit.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {

std::map<int, std::vector<int>> node_cpus(const Inventory& inv) {
  std::map<int, std::vector<int>> nodes;
  for (const NumaNodeInfo& n : inv.numa_nodes) nodes[static_cast<int>(n.os_index)] = hostpipe::parse_cpulist(n.cpus);
  return nodes;
}

namespace {

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string node_list(const std::vector<int>& nodes) {
  return nodes.empty() ? std::string("no node") : (nodes.size() == 1 ? "node " : "nodes ") + hostpipe::format_cpulist(nodes);
}

// The verdict for a device on node g, from the nodes the CPUs and the memory are on (p.cpu_nodes,
// p.mem_nodes), with its reason.
void judge_nodes(const std::string& label, int g, GpuPlacement& p) {
  const bool cpu_local = p.cpu_nodes == std::vector<int>{g};
  const bool mem_local = p.mem_nodes == std::vector<int>{g};
  const bool cpu_on_g = contains(p.cpu_nodes, g), mem_on_g = contains(p.mem_nodes, g);
  std::string where = fmt::format("{} is on node {}", label, g);
  if (cpu_local && mem_local) {
    p.placement = "local";
    p.reasons.push_back(where + ": CPUs and memory are all there");
  } else if (!cpu_on_g && !mem_on_g) {
    p.placement = "remote";
    p.reasons.push_back(where + ": neither the CPUs nor the memory are there");
  } else if (cpu_local && !mem_on_g) {
    p.placement = "split";
    p.reasons.push_back(where + ": the CPUs are local, the memory is remote");
  } else if (mem_local && !cpu_on_g) {
    p.placement = "split";
    p.reasons.push_back(where + ": the memory is local, the CPUs are remote");
  } else {
    p.placement = "spanning";
    p.reasons.push_back(fmt::format("{}: {:.1f}% of the CPUs and {} of the memory are there, the rest on other nodes", where,
                                    p.cpu_share_pct.value_or(0),
                                    p.page_share_pct ? fmt::format("{:.1f}%", *p.page_share_pct) : std::string("part")));
  }
}

}  // namespace

GpuPlacement classify_placement(const AuditTarget& target, const std::map<int, std::vector<int>>& nodes,
                                const std::vector<int>& cpus, const std::map<int, std::size_t>& pages,
                                const std::vector<int>& policy_mems) {
  GpuPlacement p;
  p.target = target;
  const int g = target.numa_node;
  std::size_t cpus_on_g = 0;
  for (const auto& [node, node_cpu_list] : nodes) {
    std::size_t n = 0;
    for (int c : cpus) n += contains(node_cpu_list, c);
    if (n > 0) p.cpu_nodes.push_back(node);
    if (node == g) cpus_on_g = n;
  }
  if (!cpus.empty()) p.cpu_share_pct = 100.0 * static_cast<double>(cpus_on_g) / static_cast<double>(cpus.size());

  std::size_t present = 0, pages_on_g = 0;
  for (const auto& [node, count] : pages) {
    if (node < 0 || count == 0) continue;
    present += count;
    p.mem_nodes.push_back(node);
    if (node == g) pages_on_g = count;
  }
  if (present > 0) p.page_share_pct = 100.0 * static_cast<double>(pages_on_g) / static_cast<double>(present);
  else p.mem_nodes = policy_mems;

  p.reasons.push_back(fmt::format("CPUs {} are on {}", hostpipe::format_cpulist(cpus), node_list(p.cpu_nodes)));
  if (present > 0)
    p.reasons.push_back(fmt::format("{} present page(s) are on {}", present, node_list(p.mem_nodes)));
  else
    p.reasons.push_back(fmt::format("no page present: memory judged by the nodes it may come from, {}", node_list(p.mem_nodes)));
  if (!target.unknown_reason.empty()) {
    p.placement = "unknown";
    p.reasons.push_back(target.label + " is not identified: " + target.unknown_reason);
    return p;
  }
  if (g < 0) {
    p.placement = "unknown";
    p.reasons.push_back(target.label + ": its NUMA node is unknown (sysfs numa_node -1: firmware without PCIe proximity)");
    return p;
  }
  judge_nodes(target.label, g, p);
  return p;
}

}  // namespace placebench::harness
