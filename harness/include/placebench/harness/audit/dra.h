// DRA records of the GPUs a pod was given: each ResourceClaim's status.allocation.devices.results
// (driver, pool, device) joined with the ResourceSlice that publishes that device, whose attributes (the
// NVIDIA DRA driver's: uuid, pcieBusID, numaNode, and the standard resource.kubernetes.io/pcieRoot) say
// which GPU it is and where. Read from `kubectl get resourceclaims,resourceslices -A -o json` (a List), or
// several such files; resource.k8s.io v1, v1beta2 (attributes on the device) and v1beta1 (on device.basic).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/audit/audit.h"

namespace placebench::harness {

struct DraGpu {
  std::string claim;                  // "namespace/name"
  std::vector<std::string> pods;      // status.reservedFor[].name (resource "pods")
  std::vector<std::string> pod_uids;  // status.reservedFor[].uid
  std::string request, driver, pool, device;
  std::string uuid;                   // attribute uuid ("" when the slice does not say)
  std::string pci_bus_id;             // attribute pcieBusID (normalised)
  std::optional<int> numa_node;       // attribute numaNode
  std::string pcie_root;              // attribute resource.kubernetes.io/pcieRoot
  std::string problem;                // why it is not identified ("" when its slice was found)
};

// Every allocated device of every claim in the text. Throws InputError "PATH: items[i] (Kind ns/name): what;
// fix" for a document that is not such a List.
std::vector<DraGpu> parse_dra_records(const std::string& text, const std::string& path);

// The DRA GPUs reserved for the pod (by UID, else by name), judged against what the process has and where
// its exclusive CPUs are: one line per disagreement ("DRA GPU gpu-2 (claim ml/x) on node 1, the process's
// CPUs on node 0"; "DRA allocated GPU A (claim ml/x), the container sees GPU B"); what cannot be judged
// goes to notes.
void check_dra(const std::vector<DraGpu>& gpus, const std::string& pod_uid, const std::string& pod_name,
               const AuditObservation& observation, std::vector<std::string>& disagreements, std::vector<std::string>& notes);

}  // namespace placebench::harness
