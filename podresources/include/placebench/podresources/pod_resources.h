// A client of the kubelet's PodResources API (v1.PodResourcesLister over a unix socket, by default
// /var/lib/kubelet/pod-resources/kubelet.sock): which devices, exclusive CPUs and memory, each with its
// NUMA nodes, the kubelet gave each container, DRA claims included, and what the node has to give
// (GetAllocatableResources). The answers are plain structs: nothing of gRPC or protobuf is in this header.
// Optional at build time (PLACEBENCH_ENABLE_PODRESOURCES): without gRPC every call answers "not built".
// Every call has a deadline; a kubelet that does not answer is an error, never a wait.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace placebench::podresources {

inline constexpr const char* kDefaultSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";
// The kubelet's own clients read answers of up to 16 MiB (podresources.defaultPodResourcesMaxSize).
inline constexpr int kMaxAnswerBytes = 16 << 20;

struct Devices {                    // ContainerDevices
  std::string resource_name;        // "nvidia.com/gpu"
  std::vector<std::string> device_ids;  // the device plugin's ids: GPU UUIDs for NVIDIA's
  std::vector<std::int64_t> numa_nodes; // topology.nodes[].ID
};

struct Memory {                     // ContainerMemory
  std::string memory_type;          // "memory", "hugepages-1Gi"
  std::uint64_t size_bytes = 0;
  std::vector<std::int64_t> numa_nodes;
};

struct ClaimDevice {                // ClaimResource
  std::string driver_name, pool_name, device_name;
  std::vector<std::string> cdi_devices;
};

struct DynamicResource {            // DynamicResource (DRA)
  std::string claim_name, claim_namespace;
  std::vector<ClaimDevice> devices;
};

struct Container {                  // ContainerResources
  std::string name;
  std::vector<Devices> devices;
  std::vector<std::int64_t> cpu_ids;
  std::vector<Memory> memory;
  std::vector<DynamicResource> dynamic_resources;
};

struct Pod {                        // PodResources
  std::string name, namespace_name;
  std::vector<Container> containers;
  std::vector<std::int64_t> cpu_ids;  // pod-level exclusive CPUs (newer kubelets), overlapping the containers'
};

struct Allocatable {                // AllocatableResourcesResponse
  std::vector<Devices> devices;
  std::vector<std::int64_t> cpu_ids;
  std::vector<Memory> memory;
};

// One call's answer: ok, or the error in one line ("List: UNAVAILABLE: ... (is the kubelet running?)").
struct PodsAnswer {
  bool ok = false;
  std::string error;
  std::vector<Pod> pods;
};
struct AllocatableAnswer {
  bool ok = false;
  std::string error;
  Allocatable allocatable;
};

// Whether this build has the client (PLACEBENCH_ENABLE_PODRESOURCES found gRPC).
bool built();

class Client {
 public:
  explicit Client(std::string socket_path = kDefaultSocket, std::chrono::milliseconds deadline = std::chrono::seconds(5));
  PodsAnswer list() const;                                                             // List
  PodsAnswer get(const std::string& pod_name, const std::string& pod_namespace) const; // Get: one pod
  AllocatableAnswer allocatable() const;                                               // GetAllocatableResources
  const std::string& socket_path() const { return socket_path_; }
  std::chrono::milliseconds deadline() const { return deadline_; }

 private:
  std::string socket_path_;
  std::chrono::milliseconds deadline_;
};

}  // namespace placebench::podresources
