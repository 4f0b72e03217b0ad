// JSON printer of an audit (fields in docs/audit.md).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "placebench/harness/audit/audit_format.h"
#include "placebench/harness/errors.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

json pages_json(const std::map<int, std::size_t>& pages) {
  json j = json::object();
  for (const auto& [node, count] : pages) j[node == -1 ? "not_present" : node == -2 ? "unknown" : std::to_string(node)] = count;
  return j;
}

json file_json(const ManagerFile& f) { return {{"path", f.path}, {"status", f.status}, {"detail", f.detail}}; }

json entries_json(const std::map<std::string, std::map<std::string, std::vector<int>>>& entries) {
  json j = json::object();
  for (const auto& [pod, containers] : entries)
    for (const auto& [c, ids] : containers) j[pod][c] = hostpipe::format_cpulist(ids);
  return j;
}

json ids_json(const std::vector<std::int64_t>& ids) {
  std::vector<int> v;
  for (std::int64_t x : ids)
    if (x >= 0 && x <= 1 << 20) v.push_back(static_cast<int>(x));  // a CPU id, not what a damaged answer may hold
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return hostpipe::format_cpulist(v);
}

json pod_resources_json(const PodResourcesRecord& r) {
  json container = nullptr;
  if (r.container) {
    json devices = json::array(), memory = json::array(), claims = json::array();
    for (const auto& d : r.container->devices)
      devices.push_back({{"resource_name", d.resource_name}, {"device_ids", d.device_ids}, {"numa_nodes", d.numa_nodes}});
    for (const auto& m : r.container->memory)
      memory.push_back({{"memory_type", m.memory_type}, {"size_bytes", m.size_bytes}, {"numa_nodes", m.numa_nodes}});
    for (const auto& d : r.container->dynamic_resources)
      for (const auto& dev : d.devices)
        claims.push_back({{"claim", d.claim_namespace + "/" + d.claim_name}, {"driver", dev.driver_name}, {"pool", dev.pool_name},
                          {"device", dev.device_name}, {"cdi_devices", dev.cdi_devices}});
    container = {{"name", r.container->name}, {"cpus", ids_json(r.container->cpu_ids)}, {"devices", devices}, {"memory", memory},
                 {"dynamic_resources", claims}};
  }
  return {{"socket", r.socket}, {"status", r.status}, {"detail", r.detail}, {"call", r.call}, {"container", container}};
}

json dra_json(const std::vector<DraGpu>& gpus) {
  json out = json::array();
  for (const DraGpu& g : gpus)
    out.push_back({{"claim", g.claim}, {"pods", g.pods}, {"request", g.request}, {"driver", g.driver}, {"pool", g.pool},
                   {"device", g.device}, {"uuid", g.uuid}, {"pci_bus_id", g.pci_bus_id},
                   {"numa_node", g.numa_node ? json(*g.numa_node) : json(nullptr)}, {"pcie_root", g.pcie_root}, {"problem", g.problem}});
  return out;
}

json managers_json(const ManagersReport& m) {
  return {{"assignment_source", m.assignment_source},
          {"dra", dra_json(m.dra)},
          {"pod_resources", pod_resources_json(m.pod_resources)},{"cpu_manager", {{"file", file_json(m.cpu.file)}, {"policy", m.cpu.policy},
                           {"default_cpus", hostpipe::format_cpulist(m.cpu.default_cpus)}, {"entries", entries_json(m.cpu.entries)}}},
          {"memory_manager", {{"file", file_json(m.memory.file)}, {"policy", m.memory.policy}, {"entries", entries_json(m.memory.entries)}}},
          {"kubelet", {{"path", m.kubelet.path}, {"status", m.kubelet.status},
                       {"topology_manager_policy", m.kubelet.topology_manager_policy},
                       {"topology_manager_scope", m.kubelet.topology_manager_scope},
                       {"cpu_manager_policy", m.kubelet.cpu_manager_policy},
                       {"memory_manager_policy", m.kubelet.memory_manager_policy}}},
          {"pod", {{"name", m.pod.name}, {"namespace", m.pod.namespace_name}, {"uid", m.pod.uid}, {"container", m.pod.container},
                   {"annotations_file", file_json(m.pod.annotations_file)}, {"labels_file", file_json(m.pod.labels_file)},
                   {"group", m.pod_group}, {"group_key", m.pod_group_key}}},
          {"hami", {{"allocated", m.hami.allocated}, {"use_gpuuuid", m.hami.use_uuids}, {"nouse_gpuuuid", m.hami.nouse_uuids},
                    {"numa_bind", m.hami.numa_bind ? json(*m.hami.numa_bind) : json(nullptr)},
                    {"numa_alignment", m.hami.numa_alignment}, {"node", m.hami.node}, {"bind_phase", m.hami.bind_phase}}},
          {"notes", m.notes}};
}

json workload_json(const WorkloadGpus& w) {
  json gpus = json::array();
  for (const WorkloadGpu& g : w.gpus)
    gpus.push_back({{"index", g.index}, {"named", g.named}, {"uuid", g.uuid}, {"pci_bus_id", g.gpu ? json(g.gpu->pci_bus_id) : json(nullptr)},
                    {"how", g.how}, {"unknown_reason", g.unknown_reason}});
  return {{"gpus", gpus}, {"no_gpu_reason", w.no_gpu_reason}};
}

}  // namespace

std::vector<std::string> AuditReport::unknowns() const {
  std::vector<std::string> out = observation.unknowns;
  for (const WorkloadGpu& w : observation.workload_gpus.gpus)
    if (!w.unknown_reason.empty()) out.push_back("GPU " + std::to_string(w.index) + " (" + w.named + "): " + w.unknown_reason);
  for (const AuditTarget& t : observation.targets)
    if (t.source == "dra" && !t.unknown_reason.empty()) out.push_back(t.label + ": " + t.unknown_reason);
  return out;
}

int AuditReport::exit_status() const {
  if (!unknowns().empty()) return kExitFailed;  // what cannot be told is never a pass
  for (const GpuPlacement& p : placements)
    if (p.placement != "local") return kExitFailed;
  return managers.disagreements.empty() ? kExitOk : kExitFailed;
}

json audit_to_json(const AuditReport& r) {
  const AuditObservation& o = r.observation;
  json threads = json::array();
  for (const auto& t : o.process.threads) threads.push_back({{"tid", t.tid}, {"name", t.name}, {"cpus", hostpipe::format_cpulist(t.cpus)}});
  json placements = json::array();
  for (const GpuPlacement& p : r.placements) {
    json cpu_nodes = p.cpu_nodes, mem_nodes = p.mem_nodes;
    placements.push_back({{"label", p.target.label}, {"index", p.target.index}, {"pci_bus_id", p.target.pci_bus_id},
                          {"name", p.target.name}, {"numa_node", p.target.numa_node < 0 ? json(nullptr) : json(p.target.numa_node)},
                          {"source", p.target.source}, {"uuid", p.target.uuid}, {"how", p.target.how}, {"placement", p.placement}, {"cpu_nodes", cpu_nodes},
                          {"mem_nodes", mem_nodes}, {"cpu_share_pct", optional_json(p.cpu_share_pct)},
                          {"page_share_pct", optional_json(p.page_share_pct)}, {"reasons", p.reasons}});
  }
  json j = {{"schema_version", kAuditSchemaVersion},
            {"pid", o.pid == 0 ? json("self") : json(o.pid)},
            {"topology", o.inventory.source},
            {"process", {{"allowed_cpus", hostpipe::format_cpulist(o.process.allowed_cpus)},
                         {"allowed_mems", hostpipe::format_cpulist(o.process.allowed_mems)},
                         {"run_cpus", hostpipe::format_cpulist(o.run_cpus)},
                         {"threads", threads},
                         {"errors", o.process.errors}}},
            {"cgroup", {{"version", o.cgroup.version}, {"path", o.cgroup.path}, {"cpus", o.cgroup.cpus},
                        {"mems", o.cgroup.mems}, {"detail", o.cgroup.detail}}},
            {"memory", {{"policy", o.mem_policy}, {"policy_nodes", o.mem_policy_nodes},
                        {"numa_maps_policies", o.numa_maps_policies}, {"pages", pages_json(o.pages)},
                        {"pages_source", o.pages_source}}},
            {"visibility", {{"cuda_visible_devices", optional_json(o.visibility.cuda_visible_devices)},
                            {"nvidia_visible_devices", optional_json(o.visibility.nvidia_visible_devices)},
                            {"cuda_device_order", optional_json(o.visibility.cuda_device_order)},
                            {"environ_problem", o.visibility.environ_problem},
                            {"gpus", workload_json(o.workload_gpus)},
                            {"device_nodes", o.visibility.device_nodes},
                            {"notes", o.visibility.notes}}},
            {"placements", placements},
            {"managers", managers_json(r.managers)},
            {"disagreements", r.managers.disagreements},
            {"warnings", r.managers.warnings},
            {"notes", o.notes},
            {"unknown", r.unknowns()},
            {"all_local", r.exit_status() == kExitOk}};
  return j;
}

}  // namespace placebench::harness
