// Where the managers' records and the observed placement disagree (see managers.h). Each rule compares
// one recorded assignment with what the kernel reports; what cannot be compared is a note, not a finding.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <set>

#include "placebench/harness/audit/managers.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

std::vector<int> minus(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  return out;
}

// The GPU UUIDs this process was handed, when its variables name them by UUID (device plugins set
// NVIDIA_VISIBLE_DEVICES to UUIDs); nullopt when they name indices, "all", or nothing.
std::optional<std::vector<std::string>> visible_uuids(const GpuVisibility& v, std::string& source) {
  for (const auto& [name, value] : {std::pair{"NVIDIA_VISIBLE_DEVICES", v.nvidia_visible_devices},
                                    std::pair{"CUDA_VISIBLE_DEVICES", v.cuda_visible_devices}}) {
    if (!value) continue;
    std::vector<std::string> uuids;
    std::size_t start = 0;
    while (start <= value->size()) {
      std::size_t end = value->find(',', start);
      if (end == std::string::npos) end = value->size();
      std::string item = value->substr(start, end - start);
      if (item.rfind("GPU-", 0) != 0) {
        uuids.clear();
        break;
      }
      uuids.push_back(item);
      start = end + 1;
    }
    if (!uuids.empty()) {
      source = name;
      return uuids;
    }
  }
  return std::nullopt;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// The UUIDs of the GPUs the container sees: those its variables were resolved to (an index form too, when
// the node names its GPUs' UUIDs), else the variables' own UUIDs. nullopt when one of them has no UUID.
std::optional<std::vector<std::string>> seen_uuids(const AuditObservation& o, std::string& source, std::string& why_not) {
  if (o.workload_gpus.gpus.empty()) return visible_uuids(o.visibility, source);
  std::vector<std::string> out;
  for (const WorkloadGpu& w : o.workload_gpus.gpus) {
    std::string u = !w.uuid.empty() ? w.uuid : w.named.rfind("GPU-", 0) == 0 ? w.named : "";
    if (u.empty()) {
      why_not = "GPU " + std::to_string(w.index) + " (" + w.named + ") has no known UUID" +
                (w.unknown_reason.empty() ? "" : ": " + w.unknown_reason);
      return std::nullopt;
    }
    out.push_back(u);
  }
  const GpuVisibility& v = o.visibility;
  source = v.nvidia_visible_devices && v.cuda_visible_devices ? "NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES"
           : v.cuda_visible_devices                            ? "CUDA_VISIBLE_DEVICES"
           : v.nvidia_visible_devices                          ? "NVIDIA_VISIBLE_DEVICES"
                                                               : "every GPU of the node";
  return out;
}

bool has_uuid(const std::vector<std::string>& v, const std::string& x) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& e) { return same_gpu_uuid(e, x); });
}

// One line per annotation that disagrees: "HAMi annotated GPU A (hami.io/vgpu-devices-allocated), the container
// sees GPU B (NVIDIA_VISIBLE_DEVICES)". With several containers the annotation lists all of theirs: the
// container's GPUs must be among them.
void check_hami(ManagersReport& r, const AuditObservation& o) {
  const HamiAnnotations& h = r.hami;
  std::vector<std::string> allocated;
  for (const auto& c : h.allocated) allocated.insert(allocated.end(), c.begin(), c.end());
  if (allocated.empty() && h.use_uuids.empty() && h.nouse_uuids.empty()) return;
  std::string source, why_not;
  auto seen = seen_uuids(o, source, why_not);
  if (!seen) {
    r.notes.push_back("HAMi's GPU annotations are not compared: " +
                      (why_not.empty() ? std::string("NVIDIA_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES do not name the GPUs by UUID") : why_not));
    return;
  }
  const std::string sees = fmt::format("the container sees GPU {} ({})", seen->empty() ? "none" : join(*seen), source);
  bool outside = std::any_of(seen->begin(), seen->end(), [&](const std::string& u) { return !has_uuid(allocated, u); });
  bool missing = h.allocated.size() == 1 && std::any_of(allocated.begin(), allocated.end(), [&](const std::string& u) { return !has_uuid(*seen, u); });
  if (!allocated.empty() && (outside || missing))
    r.disagreements.push_back(fmt::format("HAMi annotated GPU {} (hami.io/vgpu-devices-allocated), {}", join(allocated), sees));
  if (!h.use_uuids.empty() && std::any_of(seen->begin(), seen->end(), [&](const std::string& u) { return !has_uuid(h.use_uuids, u); }))
    r.disagreements.push_back(fmt::format("HAMi was asked for GPU {} (nvidia.com/use-gpuuuid), {}", join(h.use_uuids), sees));
  for (const std::string& u : *seen)
    if (has_uuid(h.nouse_uuids, u)) r.disagreements.push_back(fmt::format("HAMi was told not to use GPU {} (nvidia.com/nouse-gpuuuid), {}", u, sees));
}

// The pod's entry in a state file: the container's, or the only one, or the union when the container is unknown.
std::optional<std::vector<int>> pod_entry(const std::map<std::string, std::map<std::string, std::vector<int>>>& entries,
                                          const PodIdentity& pod, std::string& which) {
  auto it = entries.find(pod.uid);
  if (it == entries.end()) return std::nullopt;
  if (auto c = it->second.find(pod.container); !pod.container.empty() && c != it->second.end()) {
    which = "entries[" + pod.uid + "][" + pod.container + "]";
    return c->second;
  }
  std::vector<int> all;
  for (const auto& [name, ids] : it->second) all.insert(all.end(), ids.begin(), ids.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  which = "entries[" + pod.uid + "] (every container: the container name is unknown, set CONTAINER_NAME or --container)";
  return all;
}

void check_cpu_manager(ManagersReport& r, const AuditObservation& o) {
  if (r.cpu.file.status != "read") return;
  if (r.pod.uid.empty()) {
    r.notes.push_back("cpu_manager_state is not compared: the pod UID is unknown (set POD_UID from metadata.uid, or --pod-uid)");
    return;
  }
  std::string which;
  std::optional<std::vector<int>> assigned = pod_entry(r.cpu.entries, r.pod, which);
  if (!assigned) {
    assigned = r.cpu.default_cpus;
    which = "defaultCpuSet (the shared pool: the pod has no exclusive CPUs)";
  }
  std::vector<int> extra = minus(o.process.allowed_cpus, *assigned);
  if (!extra.empty())
    r.disagreements.push_back(fmt::format("CPUs {} are allowed but the CPU manager did not assign them ({} is {})",
                                          hostpipe::format_cpulist(extra), which, hostpipe::format_cpulist(*assigned)));
}

void check_memory_manager(ManagersReport& r, const AuditObservation& o) {
  if (r.memory.file.status != "read" || r.pod.uid.empty()) return;
  std::string which;
  std::optional<std::vector<int>> assigned = pod_entry(r.memory.entries, r.pod, which);
  if (!assigned) return;  // no entry: the pod is not pinned by the memory manager
  std::vector<int> extra = minus(o.process.allowed_mems, *assigned);
  if (!extra.empty())
    r.disagreements.push_back(fmt::format("memory nodes {} are allowed but the memory manager assigned {} ({})",
                                          hostpipe::format_cpulist(extra), hostpipe::format_cpulist(*assigned), which));
}

void check_numa_requests(ManagersReport& r, const AuditObservation& o, const std::vector<GpuPlacement>& placements) {
  std::set<int> gpu_nodes;
  for (const GpuPlacement& p : placements)  // an unidentified GPU is reported as unknown, not compared
    if (p.target.source != "device" && p.target.numa_node >= 0) gpu_nodes.insert(p.target.numa_node);
  if (r.hami.numa_bind.value_or(false) && gpu_nodes.size() > 1)
    r.disagreements.push_back(fmt::format("nvidia.com/numa-bind asks for GPUs on one NUMA node; the visible GPUs are on nodes {}",
                                          hostpipe::format_cpulist({gpu_nodes.begin(), gpu_nodes.end()})));
  if (!r.hami.numa_alignment.empty() && r.hami.numa_alignment != "none")
    for (const GpuPlacement& p : placements)
      if (p.target.numa_node >= 0 && p.cpu_nodes != std::vector<int>{p.target.numa_node})
        r.disagreements.push_back(fmt::format("hami.io/numa-alignment={} asks for CPUs on the GPU's node; {} is on node {}, the CPUs on {}",
                                              r.hami.numa_alignment, p.target.label, p.target.numa_node,
                                              hostpipe::format_cpulist(p.cpu_nodes)));
  if (r.kubelet.status == "read" && r.kubelet.topology_manager_policy == "single-numa-node") {
    std::string which;
    if (r.cpu.file.status != "read" || r.pod.uid.empty() || !pod_entry(r.cpu.entries, r.pod, which)) {
      r.notes.push_back("topologyManagerPolicy single-numa-node is not judged: the pod has no exclusive CPUs on record "
                        "(only Guaranteed pods with integer CPUs are aligned)");
      return;
    }
    std::set<int> nodes(gpu_nodes);
    for (const GpuPlacement& p : placements) nodes.insert(p.cpu_nodes.begin(), p.cpu_nodes.end());
    for (int m : o.process.allowed_mems) nodes.insert(m);
    if (nodes.size() > 1)
      r.disagreements.push_back(fmt::format("topologyManagerPolicy is single-numa-node (scope {}), yet the CPUs, memory and GPUs span nodes {}",
                                            r.kubelet.topology_manager_scope,
                                            hostpipe::format_cpulist({nodes.begin(), nodes.end()})));
  }
}

}  // namespace

void find_disagreements(ManagersReport& r, const AuditObservation& o, const std::vector<GpuPlacement>& placements) {
  check_hami(r, o);
  check_pod_resources(r, o);
  check_dra(r.dra, r.pod.uid, r.pod.name, o, r.disagreements, r.notes);
  if (r.assignment_source == "PodResources API") {  // the kubelet's own answer; the state files are the fallback
    if (r.cpu.file.status == "read" || r.memory.file.status == "read")
      r.notes.push_back("the kubelet's state files are not compared: its PodResources API answered for the container");
  } else {
    check_cpu_manager(r, o);
    check_memory_manager(r, o);
  }
  check_numa_requests(r, o, placements);
}

}  // namespace placebench::harness
