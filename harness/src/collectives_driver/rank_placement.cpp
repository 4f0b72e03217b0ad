// Rank -> device and placement (see rank_placement.h).
#include "placebench/harness/collectives_driver/rank_placement.h"

#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

// The device of local rank `local_rank`; nullopt (or InputError when `strict`) when its GPUs do not exist.
std::optional<DeviceSelector> device_of(const Inventory& inv, const DeviceSelector& requested, int local_rank,
                                        int gpus_per_rank, bool strict) {
  DeviceSelector d;
  if (requested.gpu && requested.device_numa)
    throw InputError("give either --gpu or --device-numa, not both");
  if (requested.gpu && inv.gpus.empty()) {  // named a GPU this node does not have: not silently a host device
    std::vector<int> nodes;
    for (const auto& n : inv.numa_nodes) nodes.push_back(static_cast<int>(n.os_index));
    throw InputError(fmt::format("--gpu {}: {} has no GPU; use --device-numa N for a host device (NUMA nodes {})", *requested.gpu,
                                 inv.source == "live" ? "this node" : inv.source, hostpipe::format_cpulist(nodes)));
  }
  if (requested.device_numa || inv.gpus.empty()) {
    d.device_numa = requested.device_numa.value_or(inv.numa_nodes.empty() ? 0 : static_cast<int>(inv.numa_nodes.front().os_index));
    return d;
  }
  int first = requested.gpu.value_or(0);
  int gpu = per_task_devices(inv, first, gpus_per_rank) ? first : first + local_rank * gpus_per_rank;
  int needed = gpu + gpus_per_rank;
  if (needed > static_cast<int>(inv.gpus.size()) && !strict) return std::nullopt;
  if (needed > static_cast<int>(inv.gpus.size()))
    throw InputError(fmt::format("--gpu {}: local rank {} needs GPUs {}-{} but this process sees {} GPU(s){}; run fewer ranks "
                                 "per node (mpirun --npernode), lower --gpus-per-rank, or use --device-numa for host devices",
                                 first, local_rank, gpu, needed - 1, inv.gpus.size(),
                                 inv.hidden_gpus.empty() ? "" : fmt::format(" ({} more hidden by CUDA_VISIBLE_DEVICES or the "
                                                                            "scheduler)", inv.hidden_gpus.size())));
  d.gpu = gpu;
  return d;
}

const GpuInfo* visible_gpu(const Inventory& inv, int cuda_index) {
  for (const GpuInfo& g : inv.gpus)
    if (g.index == cuda_index) return &g;
  return nullptr;
}

}  // namespace

bool per_task_devices(const Inventory& inv, int first_gpu, int gpus_per_rank) {
  return !inv.hidden_gpus.empty() && static_cast<int>(inv.gpus.size()) == first_gpu + gpus_per_rank;
}

RankDevice rank_device(const Inventory& inv, const DeviceSelector& requested, const RankIdentity& who, int gpus_per_rank) {
  RankDevice out;
  out.device = *device_of(inv, requested, who.local_rank, gpus_per_rank, true);
  out.numa_node = device_numa_node(inv, out.device);
  if (out.device.gpu) {
    const GpuInfo* g = visible_gpu(inv, *out.device.gpu);
    out.pci_index = g ? g->pci_index : -1;
    out.pci_bus_id = g ? g->pci_bus_id : "";
  }
  if (out.device.gpu && per_task_devices(inv, requested.gpu.value_or(0), gpus_per_rank)) {
    // The other local ranks' GPUs are hidden from this process, so their NUMA nodes are unknown: every
    // local rank gets its own worker slot, which keeps their CPU sets disjoint wherever they land.
    out.worker = who.local_rank;
    out.workers = who.local_size;
    return out;
  }
  out.workers = 0;
  for (int l = 0; l < who.local_size; ++l) {
    std::optional<DeviceSelector> other = device_of(inv, requested, l, gpus_per_rank, false);
    if (!other || device_numa_node(inv, *other) != out.numa_node) continue;
    if (l < who.local_rank) ++out.worker;
    ++out.workers;
  }
  return out;
}

RankPlacement place_rank(const Inventory& inv, const PlanRequest& request, Arm arm, const RankIdentity& who,
                         int gpus_per_rank, std::size_t bytes) {
  RankDevice device = rank_device(inv, request.device, who, gpus_per_rank);
  PlanRequest req = request;
  req.device = device.device;
  req.arms = {arm};
  req.workers = device.workers;
  std::vector<ArmPlan> plans;
  try {
    plans = plan_arms(inv, req);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} ({} local rank(s) share NUMA node {}: lower --cpus-per-worker, run fewer ranks per "
                                 "node, or use --arm unpinned)", e.what(), device.workers, device.numa_node));
  }
  PlacedWorker placed = apply_placement(plans.front(), static_cast<std::size_t>(device.worker), bytes);
  return {device, plans.front(), std::move(placed)};
}

nlohmann::json rank_to_json(const RankIdentity& who, const RankPlacement& p) {
  nlohmann::json device = p.device.device.gpu ? nlohmann::json{{"gpu", *p.device.device.gpu}}
                                              : nlohmann::json{{"device_numa", *p.device.device.device_numa}};
  if (p.device.pci_index >= 0) device["pci_index"] = p.device.pci_index;  // hwloc's index beside CUDA's
  if (!p.device.pci_bus_id.empty()) device["pci_bus_id"] = p.device.pci_bus_id;
  device["numa_node"] = p.device.numa_node;
  return {{"rank", who.rank}, {"host", who.host}, {"local_rank", who.local_rank}, {"device", device},
          {"placement", placement_to_json(p.placed.record)}};
}

}  // namespace placebench::harness
