// The kubelet's PodResources API as the audit's first record of what a container was given (see
// managers.h): Get for the pod by name and namespace (POD_NAME, POD_NAMESPACE), List on kubelets before
// Get; the state files stay the fallback. Each disagreement is one line naming both sides.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>

#include "placebench/harness/audit/managers.h"
#include "placebench/harness/errors.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

std::optional<podresources::Container> pick_container(const podresources::Pod& pod, const std::string& name, std::string& detail) {
  for (const podresources::Container& c : pod.containers)
    if (c.name == name) return c;
  if (name.empty() && pod.containers.size() == 1) return pod.containers.front();
  detail = name.empty() ? "the pod has several containers and the container's name is unknown (set CONTAINER_NAME or --container)"
                        : "the kubelet's record of pod " + pod.namespace_name + "/" + pod.name + " has no container " + name;
  return std::nullopt;
}

std::vector<int> ints(const std::vector<std::int64_t>& v) {
  std::vector<int> out;
  for (std::int64_t x : v)
    if (x >= 0 && x <= 1 << 20) out.push_back(static_cast<int>(x));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> minus(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

PodResourcesRecord read_pod_resources(const ManagersOptions& opt, const PodIdentity& pod) {
  PodResourcesRecord r;
  r.socket = opt.pod_resources_socket;
  struct stat st {};
  if (::stat(r.socket.c_str(), &st) != 0) {
    if (std::find(opt.given.begin(), opt.given.end(), "--pod-resources-socket") != opt.given.end())
      throw InputError("--pod-resources-socket " + r.socket + ": no such socket; give the kubelet's pod-resources socket, or leave the option out");
    return r;
  }
  if (!S_ISSOCK(st.st_mode)) {
    r.status = "error";
    r.detail = r.socket + ": not a socket";
    return r;
  }
  if (!podresources::built()) {
    r.status = "not built";
    r.detail = podresources::Client(r.socket).list().error;
    return r;
  }
  if (pod.name.empty() || pod.namespace_name.empty()) {
    r.status = "not found";
    r.detail = "the pod's name and namespace are unknown (set POD_NAME and POD_NAMESPACE from the downward API)";
    return r;
  }
  podresources::Client client(r.socket);
  r.call = "Get";
  podresources::PodsAnswer a = client.get(pod.name, pod.namespace_name);
  if (!a.ok && a.error.find("UNIMPLEMENTED") != std::string::npos) {  // a kubelet before Get (1.27): List
    r.call = "List";
    a = client.list();
    std::erase_if(a.pods, [&](const podresources::Pod& p) { return p.name != pod.name || p.namespace_name != pod.namespace_name; });
  }
  if (!a.ok || a.pods.empty()) {
    r.status = a.ok ? "not found" : "error";
    r.detail = a.ok ? "the kubelet has no pod " + pod.namespace_name + "/" + pod.name : one_line_message(a.error);
    return r;
  }
  r.container = pick_container(a.pods.front(), pod.container, r.detail);
  r.status = r.container ? "read" : "not found";
  return r;
}

namespace {

void check_gpus(ManagersReport& report, const AuditObservation& o, const podresources::Container& c) {
  std::map<std::string, std::string> seen;  // lower case -> as the variables spell it
  for (const WorkloadGpu& w : o.workload_gpus.gpus)
    if (!w.uuid.empty()) seen[lower(w.uuid)] = w.uuid;
  std::string seen_list;
  for (const auto& [key, uuid] : seen) seen_list += (seen_list.empty() ? "" : ",") + uuid;
  std::map<int, std::vector<int>> nodes = node_cpus(o.inventory);
  const std::vector<int> cpus = ints(c.cpu_ids);
  std::vector<int> cpu_nodes;
  for (const auto& entry : nodes) {  // no structured binding: clang 14 cannot capture one in the lambda
    const std::vector<int>& list = entry.second;
    if (std::any_of(cpus.begin(), cpus.end(), [&](int x) { return std::find(list.begin(), list.end(), x) != list.end(); }))
      cpu_nodes.push_back(entry.first);
  }
  for (const podresources::Devices& d : c.devices) {
    if (d.resource_name.find("gpu") == std::string::npos) continue;
    for (const std::string& id : d.device_ids) {
      if (!seen.empty() && !seen.count(lower(id)))
        report.disagreements.push_back(fmt::format("the kubelet assigned GPU {} ({}, PodResources API), the container sees {}", id,
                                                   d.resource_name, seen_list));
      for (std::int64_t n : d.numa_nodes)
        if (!cpus.empty() && std::find(cpu_nodes.begin(), cpu_nodes.end(), n) == cpu_nodes.end())
          report.disagreements.push_back(fmt::format("GPU {} ({}) on node {}, exclusive CPUs {} on node(s) {} (PodResources API)", id,
                                                     d.resource_name, n, hostpipe::format_cpulist(cpus), hostpipe::format_cpulist(cpu_nodes)));
    }
  }
}

}  // namespace

void check_pod_resources(ManagersReport& report, const AuditObservation& o) {
  const PodResourcesRecord& r = report.pod_resources;
  if (r.status != "read" || !r.container) {
    if (r.status != "absent") report.notes.push_back("PodResources API (" + r.socket + "): " + r.status + (r.detail.empty() ? "" : ": " + r.detail));
    return;
  }
  const podresources::Container& c = *r.container;
  const std::vector<int> cpus = ints(c.cpu_ids);
  if (!cpus.empty()) {
    std::vector<int> extra = minus(o.process.allowed_cpus, cpus);
    if (!extra.empty())
      report.disagreements.push_back(fmt::format("CPUs {} are allowed but the kubelet gave container {} exclusive CPUs {} (PodResources API)",
                                                 hostpipe::format_cpulist(extra), c.name, hostpipe::format_cpulist(cpus)));
  }
  std::vector<std::int64_t> mem_nodes;
  for (const podresources::Memory& m : c.memory) mem_nodes.insert(mem_nodes.end(), m.numa_nodes.begin(), m.numa_nodes.end());
  if (!mem_nodes.empty()) {
    std::vector<int> extra = minus(o.process.allowed_mems, ints(mem_nodes));
    if (!extra.empty())
      report.disagreements.push_back(fmt::format("memory nodes {} are allowed but the kubelet gave container {} memory on {} (PodResources API)",
                                                 hostpipe::format_cpulist(extra), c.name, hostpipe::format_cpulist(ints(mem_nodes))));
  }
  check_gpus(report, o, c);
  for (const podresources::DynamicResource& d : c.dynamic_resources)
    for (const podresources::ClaimDevice& dev : d.devices)
      report.notes.push_back(fmt::format("DRA claim {}/{}: device {} of pool {} (driver {}); its NUMA node is in the ResourceSlice, "
                                         "which the PodResources API does not give", d.claim_namespace, d.claim_name, dev.device_name,
                                         dev.pool_name, dev.driver_name));
}

}  // namespace placebench::harness
