// `placebench audit`: what a process was given (its cpuset, allowed CPUs and memory nodes, memory
// policy, every thread's affinity, where its pages land, the GPUs it can see), judged against each
// visible GPU's NUMA node. Applies nothing. Observation is gathered once into plain data
// (collect_observation); classification (classify_placement) is a pure function tested on its own.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/audit/gpu_identity.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/hostpipe/process_placement.h"

namespace placebench::harness {

inline constexpr int kAuditSchemaVersion = 1;

// A device the placement is judged against: a visible GPU, a GPU of --topology's file, or a NUMA node
// named by --device on a node without GPUs.
struct AuditTarget {
  std::string label;        // "GPU 0", "device on node 1"
  int index = -1;           // CUDA index (visible GPUs), hwloc's index (file), -1 for --device
  std::string pci_bus_id;   // "" for --device
  std::string name;
  int numa_node = -1;       // -1: unknown (sysfs numa_node -1)
  std::string source;       // "visible", "topology", "device", "unidentified"
  std::string uuid{};            // the GPU's (or MIG device's) UUID, when known
  std::string how{};             // how the process's variables were resolved to this GPU, in words
  std::string unknown_reason{};  // why it could not be identified ("" when it was): its placement is unknown
};

struct GpuPlacement {
  AuditTarget target;
  std::string placement;            // "local", "remote", "split", "spanning", "unknown"
  std::vector<int> cpu_nodes;       // nodes holding the CPUs the process's threads may run on
  std::vector<int> mem_nodes;       // nodes holding its pages (or, with none present, its policy's nodes)
  std::optional<double> cpu_share_pct;   // share of those CPUs on the target's node
  std::optional<double> page_share_pct;  // share of present pages on the target's node
  std::vector<std::string> reasons;      // in words
};

// The CPUs of every NUMA node, from the inventory (cpulists parsed).
std::map<int, std::vector<int>> node_cpus(const Inventory& inv);

// local: CPUs and pages all on the target's node. remote: neither on it. split: one all on it, the
// other nowhere on it (CPUs local and memory remote, or the reverse). spanning: the rest (CPUs or
// pages over several nodes, the target's among them). unknown: the target's node is unknown.
// cpus: where the threads may run; pages: node -> pages (keys < 0 are not present and are ignored);
// policy_mems: the nodes memory can come from, used when no page is present.
GpuPlacement classify_placement(const AuditTarget& target, const std::map<int, std::vector<int>>& nodes,
                                const std::vector<int>& cpus, const std::map<int, std::size_t>& pages,
                                const std::vector<int>& policy_mems);

struct CgroupCpuset {
  int version = 0;      // 2, 1, 0: not found
  std::string path;     // the cgroup directory read
  std::string cpus;     // effective cpulist
  std::string mems;     // effective memory nodes
  std::string detail;   // what could not be read
};

struct GpuVisibility {
  std::optional<std::string> cuda_visible_devices;    // of the audited process (its environ for --pid)
  std::optional<std::string> nvidia_visible_devices;
  std::optional<std::string> cuda_device_order;       // CUDA_DEVICE_ORDER (PCI_BUS_ID, FASTEST_FIRST)
  std::string environ_problem;                        // why the process's variables could not be read ("" read)
  std::vector<std::string> device_nodes;              // /dev/nvidiaN present ("nvidia0")
  std::vector<std::string> notes;
};

struct AuditObservation {
  int pid = 0;                                  // 0: this process
  hostpipe::ProcessPlacement process;
  std::vector<int> run_cpus;                    // union of every thread's affinity
  CgroupCpuset cgroup;
  std::string mem_policy;                       // this thread's policy (self) or the numa_maps policies (pid)
  std::vector<int> mem_policy_nodes;
  std::map<std::string, std::size_t> numa_maps_policies;  // --pid only
  std::map<int, std::size_t> pages;             // the probe buffer's pages (self) or numa_maps' (pid)
  std::string pages_source;                     // "probe buffer of N bytes", "numa_maps"
  GpuVisibility visibility;
  WorkloadGpus workload_gpus;                   // the GPUs the variables give the process (identified or not)
  std::vector<std::string> unknowns;            // why some placement cannot be told (never a pass: docs/audit.md)
  Inventory inventory;                          // the topology judged against
  std::vector<AuditTarget> targets;
  std::string no_target_reason;                 // why targets is empty (AuditOptions::defer_no_target)
  std::vector<std::string> notes;
};

struct AuditOptions {
  int pid = 0;
  std::string topology_file;       // "" : the live machine
  std::vector<int> device_nodes;   // --device: NUMA nodes to judge against instead of GPUs
  std::size_t probe_bytes = 4u << 20;
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::string dev_root = "/dev";
  bool defer_no_target = false;    // no GPU and no --device: leave targets empty (DRA records may add some)
  bool use_nvml = true;            // ask NVML for the GPUs' UUIDs (only when proc_root is the live /proc)
};

// Reads everything (never binds, never sets a policy). Throws InputError for a --pid that cannot be
// read, a --device node that does not exist, or nothing to judge against (no GPU and no --device).
AuditObservation collect_observation(const AuditOptions& options);

// The placements of every target.
std::vector<GpuPlacement> classify_all(const AuditObservation& observation);

}  // namespace placebench::harness
