// DRA records of the GPUs a pod was given, from two places:
//  - each ResourceClaim's status.allocation.devices.results (driver, pool, device) joined with the
//    ResourceSlice that publishes that device, whose attributes (the NVIDIA DRA driver's: uuid, pcieBusID,
//    numaNode, and the standard resource.kubernetes.io/pcieRoot and pciBusID) say which GPU it is and where.
//    Read from `kubectl get resourceclaims,resourceslices -A -o json` (a List); resource.k8s.io v1, v1beta2
//    (attributes on the device) and v1beta1 (on device.basic).
//  - the drivers' device metadata files inside the container (KEP-5304, Kubernetes 1.36+), under
//    /var/run/kubernetes.io/dra-device-attributes: resourceclaims/<claim>/<request>/<driver>-metadata.json
//    and resourceclaimtemplates/<podClaimName>/<request>/<driver>-metadata.json, each a stream of
//    DeviceMetadata objects (metadata.resource.k8s.io/v1alpha1), one per API version, newest first. A
//    container sees only the requests it references, so these devices are its own.
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
  std::string source = "ResourceClaim"; // "ResourceClaim" (with its slice), or the metadata file's path
  bool container_own = false;         // from the container's own metadata file: it is this container's device
};

inline constexpr const char* kDraMetadataDir = "/var/run/kubernetes.io/dra-device-attributes";
inline constexpr const char* kDeviceMetadataVersion = "metadata.resource.k8s.io/v1alpha1";

// The devices of one metadata file (the first DeviceMetadata object of a version this reads). An empty
// file (a driver that writes its metadata later) or one with no known version adds a note and no device;
// text that is not a JSON stream throws InputError "PATH: what; fix".
std::vector<DraGpu> parse_dra_metadata(const std::string& text, const std::string& path, std::vector<std::string>& notes);

// Every metadata file under dir (absent: none); a file that cannot be read or parsed is a warning.
std::vector<DraGpu> read_dra_metadata_dir(const std::string& dir, std::vector<std::string>& warnings, std::vector<std::string>& notes);

// The records in `more` added to `records`: one device (driver/pool/device) named by both is one record,
// the metadata's attributes filling what the claim's slice left out.
void merge_dra_records(std::vector<DraGpu>& records, std::vector<DraGpu> more);

// The records of the audited container: its own metadata files' devices, and the claims reserved for
// the pod (by UID, else by name).
std::vector<DraGpu> dra_gpus_of(const std::vector<DraGpu>& gpus, const std::string& pod_uid, const std::string& pod_name);

// The container's DRA GPUs as audit targets, judged like any other GPU: one that is already a target (the
// same bus id or UUID) gains a line saying so; another becomes a target "DRA GPU <device> (claim ns/x)",
// placed by the topology's GPU at its bus id, else by its numaNode attribute, else unknown with the reason.
// Nothing is added when the audit judges against --device nodes.
void add_dra_targets(AuditObservation& observation, const std::vector<DraGpu>& mine);

// Every allocated device of every claim in the text. Throws InputError "PATH: items[i] (Kind ns/name): what;
// fix" for a document that is not such a List.
std::vector<DraGpu> parse_dra_records(const std::string& text, const std::string& path);

// The container's DRA GPUs (dra_gpus_of), judged against what the process has and where
// its exclusive CPUs are: one line per disagreement ("DRA GPU gpu-2 (claim ml/x) on node 1, the process's
// CPUs on node 0"; "DRA allocated GPU A (claim ml/x), the container sees GPU B"); what cannot be judged
// goes to notes.
void check_dra(const std::vector<DraGpu>& gpus, const std::string& pod_uid, const std::string& pod_name,
               const AuditObservation& observation, std::vector<std::string>& disagreements, std::vector<std::string>& notes);

}  // namespace placebench::harness
