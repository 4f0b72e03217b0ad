// Which device each MPI rank drives and where its CPUs and memory go: the harness's policy for
// multi-rank commands (`collective`, `gang`). The local rank picks the device: GPU (first + local rank
// x gpus per rank, among the GPUs this process's CUDA sees; just `first` when the scheduler gives each
// process only its own GPUs) on GPU nodes, the `--device-numa` node (default the first node) on CPU-only nodes;
// ranks whose devices share a NUMA node get disjoint CPU sets (worker slots) of the same arm.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "placebench/harness/placement/record.h"

namespace placebench::harness {

struct RankIdentity {
  int rank = 0, local_rank = 0, local_size = 1;
  std::string host;
};

struct RankDevice {
  DeviceSelector device;  // exactly one of gpu / device_numa set
  int numa_node = -1;     // the device's NUMA node
  int worker = 0;         // this rank's slot among the local ranks on that node
  int workers = 1;
  int pci_index = -1;     // GPU: hwloc's (PCI order) index beside the CUDA index in device.gpu
  std::string pci_bus_id;
};

// True when the process sees exactly the GPUs one rank needs (first_gpu + gpus_per_rank) and others are
// hidden: Slurm --gpus-per-task or a device plugin gave each process its own, so every local rank
// starts at first_gpu instead of first_gpu + local_rank x gpus_per_rank.
bool per_task_devices(const Inventory& inv, int first_gpu, int gpus_per_rank);

// Throws InputError when the node has too few GPUs for its local ranks (naming --gpu and the fix).
RankDevice rank_device(const Inventory& inv, const DeviceSelector& requested, const RankIdentity& who, int gpus_per_rank);

struct RankPlacement {
  RankDevice device;
  ArmPlan plan;
  PlacedWorker placed;  // the calling thread is bound; placed.buffer holds `bytes` on the arm's nodes
};

// Plans `arm` for the rank's device with request's options and applies it to the calling thread.
RankPlacement place_rank(const Inventory& inv, const PlanRequest& request, Arm arm, const RankIdentity& who,
                         int gpus_per_rank, std::size_t bytes);

// {rank, host, local_rank, device: {gpu, pci_index, pci_bus_id | device_numa, numa_node}, placement: placement_to_json}
nlohmann::json rank_to_json(const RankIdentity& who, const RankPlacement& placement);

}  // namespace placebench::harness
