// Resolving placement arms on a topology: which CPUs and memory nodes each arm means for the worker(s)
// of one device. Pure planning on an Inventory, so it works on saved topologies too.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/placement/arm.h"
#include "placebench/harness/topology/inventory.h"

namespace placebench::harness {

// The device a worker drives: a GPU (by index) or, on a CPU-only node, a "host device" NUMA node.
struct DeviceSelector {
  std::optional<int> gpu;          // --gpu I
  std::optional<int> device_numa;  // --device-numa N (default: the first NUMA node when there is no GPU)
};

struct PlanRequest {
  DeviceSelector device;
  std::vector<Arm> arms;
  int cpus_per_worker = 1;
  int workers = 1;                  // workers sharing the device's node get disjoint CPU sets
  std::optional<int> remote_node;   // name the remote node instead of the farthest
  bool allow_degenerate = false;    // run arms this node cannot realise, marked degenerate
};

struct WorkerPlacement {
  std::vector<int> cpus;            // requested CPUs; empty for unpinned (no binding)
  std::vector<int> mem_nodes;       // requested memory nodes; empty for unpinned (default policy)
};

struct ArmPlan {
  Arm arm = Arm::kLocal;
  int device_numa = 0;              // the NUMA node of the device
  int cpu_node = -1;                // the node the CPUs come from (-1: unpinned)
  int mem_node = -1;                // the node memory is bound to (-1: unpinned)
  std::vector<WorkerPlacement> workers;
  // The training loop (the thread that feeds the device, e.g. the pipeline's consumer): the CPUs of
  // the arm's CPU node that no worker holds, or all of that node's CPUs when the workers hold every
  // one (shared then); memory as the workers'. Empty for unpinned.
  WorkerPlacement loop;
  bool degenerate = false;          // the arm could not be realised as named (e.g. remote on one node)
  std::vector<std::string> notes;
};

// The NUMA node of the selected device. Throws InputError for a GPU or node that does not exist,
// or a GPU whose NUMA node is unknown.
int device_numa_node(const Inventory& inv, const DeviceSelector& device);

// The farthest node from `from` by the distance matrix (ties: the next by os_index after `from`,
// wrapping around); without distances, the next node by os_index. nullopt on a one-node machine.
std::optional<int> farthest_node(const Inventory& inv, int from);

// CPUs of `node` (os_index) this process may use (all of them when `ignore_allowed`); empty for a node
// the inventory does not have.
std::vector<int> usable_cpus(const Inventory& inv, int node, bool ignore_allowed = false);

// Resolves every requested arm. CPUs come from the node's CPUs that this process may use (allowed);
// a node named with remote_node is used as given, so that a forbidden placement is attempted and
// verification, not planning, catches it. Throws InputError when an arm cannot get enough CPUs (with
// how many it needed and how many were free) or cannot be realised and allow_degenerate is off.
std::vector<ArmPlan> plan_arms(const Inventory& inv, const PlanRequest& request);

}  // namespace placebench::harness
