// Arm resolution (see plan.h).
#include "placebench/harness/placement/plan.h"

#include <algorithm>
#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

std::string node_list(const Inventory& inv) {
  std::vector<int> ids;
  for (const auto& n : inv.numa_nodes) ids.push_back(static_cast<int>(n.os_index));
  return hostpipe::format_cpulist(ids);
}

const NumaNodeInfo* find_node(const Inventory& inv, int os_index) {
  for (const auto& n : inv.numa_nodes)
    if (static_cast<int>(n.os_index) == os_index) return &n;
  return nullptr;
}

}  // namespace

std::vector<int> usable_cpus(const Inventory& inv, int node, bool ignore_allowed) {
  const NumaNodeInfo* n = find_node(inv, node);
  if (!n) return {};
  std::vector<int> cpus = hostpipe::parse_cpulist(n->cpus);
  if (ignore_allowed || inv.allowed_cpus.empty()) return cpus;
  std::vector<int> allowed = hostpipe::parse_cpulist(inv.allowed_cpus), out;
  std::set_intersection(cpus.begin(), cpus.end(), allowed.begin(), allowed.end(), std::back_inserter(out));
  return out;
}

namespace {

// Fills the workers' placements (disjoint CPU sets) and the training loop's (the rest of the node).
void split_workers(const Inventory& inv, ArmPlan& plan, const PlanRequest& req, bool explicit_cpu_node) {
  std::vector<WorkerPlacement>& workers = plan.workers;
  workers.assign(static_cast<size_t>(req.workers), {});
  if (plan.cpu_node < 0) return;  // unpinned: nothing requested
  std::vector<int> cpus = usable_cpus(inv, plan.cpu_node, explicit_cpu_node);
  size_t need = static_cast<size_t>(req.workers) * static_cast<size_t>(req.cpus_per_worker);
  if (cpus.size() < need)
    throw InputError(fmt::format("arm {}: needs {} CPUs on NUMA node {} ({} worker(s) x {} CPUs), {} free ({}); "
                                 "lower --cpus-per-worker or --workers",
                                 arm_name(plan.arm), need, plan.cpu_node, req.workers, req.cpus_per_worker,
                                 cpus.size(), cpus.empty() ? "none allowed" : "allowed: " + hostpipe::format_cpulist(cpus)));
  for (size_t w = 0; w < workers.size(); ++w) {
    auto first = cpus.begin() + static_cast<long>(w * static_cast<size_t>(req.cpus_per_worker));
    workers[w].cpus.assign(first, first + req.cpus_per_worker);
    workers[w].mem_nodes = {plan.mem_node};
  }
  plan.loop.cpus.assign(cpus.begin() + static_cast<long>(need), cpus.end());
  if (plan.loop.cpus.empty()) plan.loop.cpus = cpus;
  plan.loop.mem_nodes = {plan.mem_node};
}

}  // namespace

int device_numa_node(const Inventory& inv, const DeviceSelector& device) {
  if (device.gpu && device.device_numa)
    throw InputError("give either --gpu or --device-numa, not both");
  if (device.gpu || (!device.device_numa && !inv.gpus.empty())) {
    int index = device.gpu.value_or(0);
    if (inv.gpus.empty())
      throw InputError(fmt::format("--gpu {}: {} has no GPU; use --device-numa N (nodes {})", index, inv.source,
                                   node_list(inv)));
    auto it = std::find_if(inv.gpus.begin(), inv.gpus.end(), [&](const GpuInfo& g) { return g.index == index; });
    if (it == inv.gpus.end())
      throw InputError(fmt::format("--gpu {}: {} has GPUs 0-{}{}; give one of those CUDA indices", index, inv.source,
                                   inv.gpus.size() - 1,
                                   inv.hidden_gpus.empty() ? "" : fmt::format(" visible to CUDA ({} hidden by "
                                                                              "CUDA_VISIBLE_DEVICES or the scheduler)",
                                                                              inv.hidden_gpus.size())));
    if (it->numa_node < 0)
      throw InputError(fmt::format("--gpu {}: its NUMA node is unknown in {}; give the node with --device-numa N",
                                   index, inv.source));
    return it->numa_node;
  }
  int node = device.device_numa.value_or(inv.numa_nodes.empty() ? 0 : static_cast<int>(inv.numa_nodes[0].os_index));
  if (!find_node(inv, node))
    throw InputError(fmt::format("--device-numa {}: {} has NUMA nodes {}", node, inv.source, node_list(inv)));
  return node;
}

std::optional<int> farthest_node(const Inventory& inv, int from) {
  size_t n = inv.numa_nodes.size(), self = n;
  for (size_t i = 0; i < n; ++i)
    if (static_cast<int>(inv.numa_nodes[i].os_index) == from) self = i;
  if (n < 2 || self == n) return std::nullopt;
  std::optional<int> best;
  std::uint64_t best_distance = 0;
  // Walk the others in os_index order starting after `from`, so ties go to the next by os_index.
  for (size_t step = 1; step < n; ++step) {
    size_t i = (self + step) % n;
    std::uint64_t d = inv.distances ? (*inv.distances)[self][i] : 1;
    if (!best || d > best_distance) {
      best = static_cast<int>(inv.numa_nodes[i].os_index);
      best_distance = d;
    }
  }
  return best;
}

std::vector<ArmPlan> plan_arms(const Inventory& inv, const PlanRequest& req) {
  if (req.cpus_per_worker < 1) throw InputError("--cpus-per-worker must be at least 1");
  if (req.workers < 1) throw InputError("--workers must be at least 1");
  int dev = device_numa_node(inv, req.device);
  std::optional<int> remote = req.remote_node ? req.remote_node : farthest_node(inv, dev);
  if (req.remote_node && !find_node(inv, *req.remote_node))
    throw InputError(fmt::format("--remote-node {}: {} has NUMA nodes {}", *req.remote_node, inv.source, node_list(inv)));
  if (req.remote_node && *req.remote_node == dev)
    throw InputError(fmt::format("--remote-node {} is the device's own node; name another one ({})", dev, node_list(inv)));

  std::vector<ArmPlan> plans;
  for (Arm arm : req.arms) {
    ArmPlan p;
    p.arm = arm;
    p.device_numa = dev;
    bool uses_remote = arm == Arm::kRemote || arm == Arm::kCpuLocalMemRemote || arm == Arm::kCpuRemoteMemLocal;
    int r = remote.value_or(dev);
    if (uses_remote && !remote) {
      if (!req.allow_degenerate)
        throw InputError(fmt::format("arm {} needs a second NUMA node and {} has only node {}; "
                                     "use --allow-degenerate to run it anyway, marked degenerate",
                                     arm_name(arm), inv.source == "live" ? "this machine" : inv.source, dev));
      p.degenerate = true;
      p.notes.push_back("degenerate: no remote NUMA node, the remote side is node " + std::to_string(dev));
    }
    switch (arm) {
      case Arm::kLocal: p.cpu_node = dev; p.mem_node = dev; break;
      case Arm::kRemote: p.cpu_node = r; p.mem_node = r; break;
      case Arm::kCpuLocalMemRemote: p.cpu_node = dev; p.mem_node = r; break;
      case Arm::kCpuRemoteMemLocal: p.cpu_node = r; p.mem_node = dev; break;
      case Arm::kUnpinned: break;
    }
    bool explicit_cpu_node = req.remote_node && p.cpu_node == *req.remote_node;
    if (req.remote_node && uses_remote && !inv.allowed_mems.empty()) {
      auto mems = hostpipe::parse_cpulist(inv.allowed_mems);
      if (std::find(mems.begin(), mems.end(), *req.remote_node) == mems.end())
        p.notes.push_back(fmt::format("node {} is outside the allowed memory nodes ({}): verification will show it",
                                      *req.remote_node, inv.allowed_mems));
    }
    split_workers(inv, p, req, explicit_cpu_node);
    plans.push_back(std::move(p));
  }
  return plans;
}

}  // namespace placebench::harness
