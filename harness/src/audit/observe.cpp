// Gathering what a process was given (see audit.h). Reads only: /proc, the cgroup hierarchy, the
// topology, the environment and /dev. The one thing it writes is a probe buffer of its own, touched under
// the default policy, to see where this process's new pages land.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "placebench/harness/audit/audit.h"
#include "placebench/harness/errors.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/numa_buffer.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"

namespace placebench::harness {
namespace {

namespace fs = std::filesystem;

// The variable of the audited process; nullopt when unset, or when its environ cannot be read (then
// *problem says why, and what it would have named is unknown).
std::optional<std::string> env_of(int pid, const std::string& proc_root, const std::string& name, std::string* problem) {
  if (pid == 0) {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(hostpipe::valid_utf8(v)) : std::nullopt;
  }
  std::optional<std::string> environ =
      hostpipe::read_proc_text(hostpipe::proc_dir(pid, proc_root) + "/environ", hostpipe::kMaxEnvironBytes, problem);
  if (!environ) return std::nullopt;
  const std::string key = name + "=";
  std::size_t start = 0;
  while (start < environ->size()) {
    std::size_t end = environ->find('\0', start);
    if (end == std::string::npos) end = environ->size();
    if (environ->compare(start, key.size(), key) == 0)
      return hostpipe::valid_utf8(environ->substr(start + key.size(), end - start - key.size()));
    start = end + 1;
  }
  return std::nullopt;
}

// /dev/nvidiaN present, and which PCI bus id each minor is (/proc/driver/nvidia/gpus/<bus>/information).
void read_device_nodes(const AuditOptions& opt, const Inventory& inv, GpuVisibility& vis) {
  static const std::regex kNode("nvidia[0-9]+");
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(opt.dev_root, ec)) {
    std::string name = e.path().filename().string();
    if (std::regex_match(name, kNode)) vis.device_nodes.push_back(name);
  }
  std::sort(vis.device_nodes.begin(), vis.device_nodes.end());
  for (const fs::directory_entry& e : fs::directory_iterator(opt.proc_root + "/driver/nvidia/gpus", ec)) {
    std::optional<std::string> info = hostpipe::read_proc_text(e.path().string() + "/information", hostpipe::kMaxProcTextBytes);
    std::size_t at = info ? info->find("Device Minor:") : std::string::npos;
    if (at == std::string::npos) continue;
    std::string node = "nvidia" + std::to_string(std::atoi(info->c_str() + at + 13));
    std::string bus = kernels::normalize_pci_bus_id(e.path().filename().string());
    bool visible = std::any_of(inv.gpus.begin(), inv.gpus.end(), [&](const GpuInfo& g) { return g.pci_bus_id == bus; });
    bool present = std::find(vis.device_nodes.begin(), vis.device_nodes.end(), node) != vis.device_nodes.end();
    if (visible && !present)
      vis.notes.push_back("GPU " + bus + " is visible to CUDA's variables but /dev/" + node + " is absent: it cannot be opened");
    if (!visible && present)
      vis.notes.push_back("/dev/" + node + " (GPU " + bus + ") is present but hidden by CUDA_VISIBLE_DEVICES");
  }
}

CgroupCpuset read_cpuset(const AuditOptions& opt) {
  CgroupCpuset c;
  if (opt.pid != 0) {
    c.detail = "the cgroup is read for this process only; --pid's allowed sets come from its status";
    return c;
  }
  hostpipe::sysmetrics::CgroupLimits l = hostpipe::sysmetrics::read_cgroup_limits(opt.proc_root, opt.sys_root);
  c.version = l.version;
  c.path = l.cpuset_path;
  c.cpus = l.cpuset_cpus_effective;
  c.mems = l.cpuset_mems_effective;
  c.detail = l.detail;
  return c;
}

void read_memory(const AuditOptions& opt, AuditObservation& o) {
  if (opt.pid != 0) {
    hostpipe::NumaMaps maps = hostpipe::read_numa_maps(opt.pid, opt.proc_root);
    if (!maps.error.empty()) o.unknowns.push_back("where the process's memory is cannot be told: " + maps.error);
    o.numa_maps_policies = maps.policies;
    o.pages = maps.pages;
    o.pages_source = "numa_maps";
    std::vector<int> nodes;
    for (const auto& [policy, count] : maps.policies) {
      std::size_t colon = policy.find(':');
      if (colon == std::string::npos) continue;
      try {
        for (int n : hostpipe::parse_cpulist(policy.substr(colon + 1))) nodes.push_back(n);
      } catch (const std::invalid_argument&) {
        // a policy spelling this reader does not know: its nodes are not counted
      }
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    o.mem_policy = maps.policies.size() == 1 ? maps.policies.begin()->first : "mixed";
    o.mem_policy_nodes = nodes;
    return;
  }
  hostpipe::MemPolicy mp = hostpipe::query_thread_mempolicy();
  o.mem_policy = mp.mode;
  o.mem_policy_nodes = mp.nodes;
  if (!mp.error.empty()) o.notes.push_back(mp.error);
  hostpipe::NumaBuffer probe(opt.probe_bytes, {});  // the default policy: this thread's own
  probe.touch();
  o.pages = hostpipe::page_node_histogram(probe.data(), probe.size());
  o.pages_source = "probe buffer of " + std::to_string(opt.probe_bytes) + " bytes";
}

// The node's GPUs in PCI bus order, indexed so (NVML's and the container toolkit's order), from an
// inventory that may already have been split into visible and hidden ones.
std::vector<GpuInfo> node_gpus(const Inventory& inv) {
  std::vector<GpuInfo> all = inv.gpus;
  all.insert(all.end(), inv.hidden_gpus.begin(), inv.hidden_gpus.end());
  std::sort(all.begin(), all.end(), [](const GpuInfo& a, const GpuInfo& b) { return a.pci_bus_id < b.pci_bus_id; });
  for (std::size_t i = 0; i < all.size(); ++i) all[i].index = static_cast<int>(i);
  return all;
}

// The topology, and (o.workload_gpus) the GPUs the process has: CUDA's own answer for this process when
// the runtime is usable, else the process's variables resolved against what the node says.
Inventory read_inventory(const AuditOptions& opt, AuditObservation& o) {
  Inventory inv = opt.topology_file.empty() ? build_inventory(Topology::load_live()) : build_inventory(Topology::load_file(opt.topology_file));
  if (opt.topology_file.empty() && opt.pid == 0) {
    kernels::DeviceRuntime runtime = kernels::query_device_runtime();
    cross_check_live(inv, runtime, opt.sys_root);
    if (runtime.usable()) {  // CUDA itself says which GPUs this process has
      for (const GpuInfo& g : inv.gpus) o.workload_gpus.gpus.push_back({g.index, std::to_string(g.index), g, g.uuid, "the CUDA runtime", ""});
      return inv;
    }
  }
  std::vector<GpuInfo> node = node_gpus(inv);
  const bool live = opt.topology_file.empty() && opt.proc_root == "/proc";
  NodeGpuIds ids = read_node_gpu_ids(opt.proc_root, node, opt.use_nvml && live);
  if (!o.visibility.environ_problem.empty())
    o.workload_gpus.gpus.push_back({0, "?", std::nullopt, "", "",
                                    "the process's variables cannot be read (" + o.visibility.environ_problem + "): which GPUs it has is unknown"});
  else
    o.workload_gpus = resolve_workload_gpus(node, ids, o.visibility.nvidia_visible_devices, o.visibility.cuda_visible_devices,
                                            o.visibility.cuda_device_order);
  inv.gpus.clear();
  inv.hidden_gpus.clear();
  for (const WorkloadGpu& w : o.workload_gpus.gpus)
    if (w.gpu) inv.gpus.push_back(*w.gpu), inv.gpus.back().index = w.index;
  for (const GpuInfo& g : node)
    if (std::none_of(inv.gpus.begin(), inv.gpus.end(), [&](const GpuInfo& v) { return v.pci_bus_id == g.pci_bus_id; })) inv.hidden_gpus.push_back(g);
  for (const std::string& n : o.workload_gpus.notes) o.visibility.notes.push_back(n);
  return inv;
}

AuditTarget target_of(const WorkloadGpu& w, bool from_file) {
  AuditTarget t{"GPU " + std::to_string(w.index), w.index, "", "", -1, "unidentified"};
  if (w.gpu) {
    t.pci_bus_id = w.gpu->pci_bus_id;
    t.name = w.gpu->name;
    t.numa_node = w.gpu->numa_node;
    t.source = from_file ? "topology" : "visible";
  }
  t.uuid = w.uuid;
  t.how = w.how;
  t.unknown_reason = w.unknown_reason;
  return t;
}

std::vector<AuditTarget> choose_targets(const AuditOptions& opt, const AuditObservation& o, std::string& no_target_reason) {
  const Inventory& inv = o.inventory;
  std::vector<AuditTarget> targets;
  if (!opt.device_nodes.empty()) {
    for (int n : opt.device_nodes) {
      bool exists = std::any_of(inv.numa_nodes.begin(), inv.numa_nodes.end(),
                                [&](const NumaNodeInfo& i) { return static_cast<int>(i.os_index) == n; });
      if (!exists) {
        std::vector<int> ids;
        for (const NumaNodeInfo& i : inv.numa_nodes) ids.push_back(static_cast<int>(i.os_index));
        throw InputError("audit: --device-numa " + std::to_string(n) + ": no NUMA node " + std::to_string(n) + " in " +
                         inv.source + " (nodes " + hostpipe::format_cpulist(ids) + "); give one of them");
      }
      targets.push_back({"device on node " + std::to_string(n), -1, "", "", n, "device"});
    }
    return targets;
  }
  for (const WorkloadGpu& w : o.workload_gpus.gpus) targets.push_back(target_of(w, !opt.topology_file.empty()));
  if (targets.empty()) {
    const std::string why = o.workload_gpus.no_gpu_reason.empty() ? "no GPU is visible to the audited process in " + inv.source
                                                                   : o.workload_gpus.no_gpu_reason;
    const std::string message = "audit: " + why + " and no --device-numa was given; give --device-numa NODE (the NUMA node of the device to judge "
                                "against) or --topology FILE.xml with the node's GPUs";
    if (!opt.defer_no_target) throw InputError(message);
    no_target_reason = message;
  }
  return targets;
}

// A process with nothing to judge: a kernel thread has no memory of its own and no GPU, a zombie has
// released both. Said before the memory reader's own line (numa_maps is empty for both).
void note_unknowns(AuditObservation& o) {
  const std::string who = o.pid == 0 ? std::string("this process") : "pid " + std::to_string(o.pid);
  if (o.process.kernel_thread)
    o.unknowns.insert(o.unknowns.begin(), who + " is a kernel thread: it has no memory of its own and no GPU to judge");
  else if (o.process.state == "Z" || o.process.state == "X")
    o.unknowns.insert(o.unknowns.begin(), who + " is a zombie (State: " + o.process.state + "): it has released its memory and GPUs");
}

}  // namespace

AuditObservation collect_observation(const AuditOptions& opt) {
  AuditObservation o;
  o.pid = opt.pid;
  o.process = hostpipe::read_process_placement(opt.pid, opt.proc_root);
  if (o.process.allowed_cpus.empty() && !o.process.errors.empty()) {
    std::string what = opt.pid == 0 ? std::string("audit") : "audit: --pid " + std::to_string(opt.pid);
    throw InputError(what + ": " + o.process.errors.front() + "; give the id of a running process you may read (ps -e)");
  }
  for (const hostpipe::ThreadAffinity& t : o.process.threads) o.run_cpus.insert(o.run_cpus.end(), t.cpus.begin(), t.cpus.end());
  if (o.run_cpus.empty()) o.run_cpus = o.process.allowed_cpus;
  std::sort(o.run_cpus.begin(), o.run_cpus.end());
  o.run_cpus.erase(std::unique(o.run_cpus.begin(), o.run_cpus.end()), o.run_cpus.end());
  o.cgroup = read_cpuset(opt);
  read_memory(opt, o);
  o.visibility.cuda_visible_devices = env_of(opt.pid, opt.proc_root, "CUDA_VISIBLE_DEVICES", &o.visibility.environ_problem);
  o.visibility.nvidia_visible_devices = env_of(opt.pid, opt.proc_root, "NVIDIA_VISIBLE_DEVICES", &o.visibility.environ_problem);
  o.visibility.cuda_device_order = env_of(opt.pid, opt.proc_root, "CUDA_DEVICE_ORDER", &o.visibility.environ_problem);
  o.inventory = read_inventory(opt, o);
  if (opt.topology_file.empty()) read_device_nodes(opt, o.inventory, o.visibility);
  o.targets = choose_targets(opt, o, o.no_target_reason);
  note_unknowns(o);
  return o;
}

std::vector<GpuPlacement> classify_all(const AuditObservation& o) {
  std::map<int, std::vector<int>> nodes = node_cpus(o.inventory);
  const bool policy_limits = o.mem_policy == "bind" || o.mem_policy == "interleave" || o.mem_policy == "preferred";
  const std::vector<int>& mems = policy_limits && !o.mem_policy_nodes.empty() ? o.mem_policy_nodes : o.process.allowed_mems;
  std::vector<GpuPlacement> out;
  for (const AuditTarget& t : o.targets) {
    GpuPlacement p = classify_placement(t, nodes, o.run_cpus, o.pages, mems);
    if (!o.unknowns.empty()) {  // the process itself cannot be judged: no target is local, or anything else
      p.placement = "unknown";
      p.reasons.insert(p.reasons.end(), o.unknowns.begin(), o.unknowns.end());
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace placebench::harness
