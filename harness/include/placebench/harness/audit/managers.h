// What the node's managers recorded for this pod, read from the files they leave on the node and in the
// pod: the kubelet's cpu_manager_state and memory_manager_state, its Topology Manager policy and scope,
// the downward API's annotations and labels (HAMi's device and NUMA annotations, the pod group), and
// where that disagrees with what the process was observed to get. A file that is absent is "absent";
// one that cannot be parsed is "malformed" with a one-line warning naming the file and the place, and
// the audit goes on with the rest (docs/audit.md).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/audit/audit.h"
#include "placebench/harness/audit/dra.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"
#include "placebench/podresources/pod_resources.h"

namespace placebench::harness {

struct ManagerFile {
  std::string path;
  std::string status = "absent";  // "read", "absent", "malformed"
  std::string detail;             // the warning for "malformed"
};

struct CpuManagerState {
  ManagerFile file;
  std::string policy;                // policyName
  std::vector<int> default_cpus;     // defaultCpuSet: the shared pool
  std::map<std::string, std::map<std::string, std::vector<int>>> entries;  // pod UID -> container -> CPUs
};

struct MemoryManagerState {
  ManagerFile file;
  std::string policy;
  std::map<std::string, std::map<std::string, std::vector<int>>> entries;  // pod UID -> container -> NUMA nodes
};

struct PodIdentity {
  ManagerFile annotations_file;
  ManagerFile labels_file;
  std::string name, namespace_name, uid, container;  // from the environment, options or the cgroup path
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
};

// HAMi's annotations (github.com/Project-HAMi/HAMi, pkg/device/nvidia and pkg/util).
struct HamiAnnotations {
  std::vector<std::vector<std::string>> allocated;  // hami.io/vgpu-devices-allocated: per container, GPU UUIDs
  std::vector<std::string> use_uuids;               // nvidia.com/use-gpuuuid
  std::vector<std::string> nouse_uuids;             // nvidia.com/nouse-gpuuuid
  std::optional<bool> numa_bind;                    // nvidia.com/numa-bind
  std::string numa_alignment;                       // hami.io/numa-alignment: "best-effort" | "strict" | ""
  std::string node;                                 // hami.io/vgpu-node
  std::string bind_phase;                           // hami.io/bind-phase
};

struct ManagersOptions {
  std::string cpu_manager_state = "/var/lib/kubelet/cpu_manager_state";
  std::string memory_manager_state = "/var/lib/kubelet/memory_manager_state";
  std::string kubelet_config = "/var/lib/kubelet/config.yaml";
  std::string annotations = "/etc/podinfo/annotations";
  std::string labels = "/etc/podinfo/labels";
  std::string pod_uid;     // "" : POD_UID, else the pod<uid> of the cgroup path
  std::string container;   // "" : CONTAINER_NAME
  std::string pod_resources_socket = podresources::kDefaultSocket;  // the kubelet's PodResources API
  std::string dra_file;    // "" : none; kubectl get resourceclaims,resourceslices -A -o json
  std::string dra_metadata_dir = kDraMetadataDir;  // the drivers' device metadata files (--pid: under /proc/PID/root)
  std::string proc_root = "/proc";  // for the cgroup path of the audited process
  std::vector<std::string> given;  // options the user gave explicitly: their file must exist
};

// The kubelet's own answer (PodResources API, Get or List) for the audited container.
struct PodResourcesRecord {
  std::string socket;
  std::string status = "absent";  // "read", "absent", "not built", "error", "not found", "not read"
  std::string detail;             // the error, or why the container could not be picked
  std::string call;               // "Get" or "List"
  std::optional<podresources::Container> container;
};

struct ManagersReport {
  PodResourcesRecord pod_resources;
  std::vector<DraGpu> dra;                 // every allocated DRA device of the --dra file
  std::string assignment_source = "none";  // "PodResources API", "state files" (the fallback) or "none"
  CpuManagerState cpu;
  MemoryManagerState memory;
  hostpipe::sysmetrics::KubeletPolicies kubelet;
  PodIdentity pod;
  HamiAnnotations hami;
  std::string pod_group;        // Volcano's or scheduler-plugins' group name, "" when none
  std::string pod_group_key;    // which key held it
  std::vector<std::string> disagreements;  // recorded assignment vs observed, in words
  std::vector<std::string> warnings;       // malformed files: "PATH: place: what; fix"
  std::vector<std::string> notes;          // what could not be compared, and why
};

// Parsers of the real formats (tests feed them text). Each throws std::invalid_argument with the place
// ("line 3", "entries.pod-uid.main") and what is wrong.
CpuManagerState parse_cpu_manager_state(const std::string& text);
MemoryManagerState parse_memory_manager_state(const std::string& text);
// The downward API's `key="value"` lines (Go-quoted values).
std::map<std::string, std::string> parse_downward_api_file(const std::string& text);
HamiAnnotations read_hami_annotations(const std::map<std::string, std::string>& annotations);

// Reads every file (absent ones are "absent"; malformed ones a warning). Throws InputError only for a
// file named by an option (ManagersOptions::given) that does not exist or is not a regular file.
ManagersReport read_managers(const ManagersOptions& options, const AuditObservation& observation);

// Reads the container's record from the PodResources API (the socket absent: "absent"; named by
// --pod-resources-socket and absent: InputError). Called by read_managers.
PodResourcesRecord read_pod_resources(const ManagersOptions& options, const PodIdentity& pod);

// The PodResources API's assignment against the observation: CPUs and memory nodes outside it, GPUs it
// assigned that the container does not see (and the reverse), a GPU on another node than the CPUs.
void check_pod_resources(ManagersReport& report, const AuditObservation& observation);

// Fills report.disagreements from the observation and the placements.
void find_disagreements(ManagersReport& report, const AuditObservation& observation,
                        const std::vector<GpuPlacement>& placements);

}  // namespace placebench::harness
