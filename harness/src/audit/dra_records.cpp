// ResourceClaims joined with ResourceSlices (see dra.h); the attributes as dra_attributes.h reads them.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "placebench/harness/audit/dra.h"
#include "dra_attributes.h"
#include "placebench/harness/errors.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

using nlohmann::json;

// The attribute by its plain or qualified name.
const json* attribute(const json& attributes, const std::string& name) {
  if (!attributes.is_object()) return nullptr;
  for (const auto& [key, value] : attributes.items()) {
    std::size_t slash = key.rfind('/');
    if (key == name || (slash != std::string::npos && key.substr(slash + 1) == name)) return &value;
  }
  return nullptr;
}

std::string string_attribute(const json& attributes, const std::string& name) {
  const json* a = attribute(attributes, name);
  return a && a->is_object() && a->contains("string") && (*a)["string"].is_string() ? (*a)["string"].get<std::string>() : "";
}

std::optional<int> int_attribute(const json& attributes, const std::string& name) {
  const json* a = attribute(attributes, name);
  if (!a || !a->is_object() || !a->contains("int") || !(*a)["int"].is_number_integer()) return std::nullopt;
  std::int64_t v = (*a)["int"].get<std::int64_t>();
  return v >= 0 && v <= 4095 ? std::optional<int>(static_cast<int>(v)) : std::nullopt;  // a NUMA node id
}

std::string str(const json& j, const char* key) { return dra_string(j, key); }

std::string where(const std::string& path, std::size_t i, const json& item) {
  const json& m = item.is_object() && item.contains("metadata") ? item["metadata"] : json::object();
  std::string ns = str(m, "namespace");
  return fmt::format("{}: items[{}] ({} {}{})", path, i, str(item, "kind"), ns.empty() ? "" : ns + "/", str(m, "name"));
}

// driver/pool/device -> the device's attributes, from every ResourceSlice.
std::map<std::string, DraAttributes> slice_devices(const json& items) {
  std::map<std::string, DraAttributes> out;
  for (const json& item : items) {
    if (str(item, "kind") != "ResourceSlice" || !item.contains("spec")) continue;
    const json& spec = item["spec"];
    const std::string prefix = str(spec, "driver") + "/" + (spec.contains("pool") ? str(spec["pool"], "name") : "") + "/";
    if (!spec.contains("devices") || !spec["devices"].is_array()) continue;
    for (const json& d : spec["devices"]) {
      const json& attrs = d.contains("attributes") ? d["attributes"] : d.contains("basic") ? d["basic"].value("attributes", json::object()) : json::object();
      out[prefix + str(d, "name")] = read_dra_attributes(attrs);
    }
  }
  return out;
}

}  // namespace

std::string dra_string(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

DraAttributes read_dra_attributes(const json& attrs) {
  DraAttributes a{string_attribute(attrs, "uuid"), string_attribute(attrs, "pcieBusID"), string_attribute(attrs, "pcieRoot"),
                  int_attribute(attrs, "numaNode")};
  if (a.pci_bus_id.empty()) a.pci_bus_id = string_attribute(attrs, "pciBusID");  // resource.kubernetes.io/pciBusID
  if (!a.pci_bus_id.empty()) a.pci_bus_id = kernels::normalize_pci_bus_id(a.pci_bus_id);
  return a;
}

std::vector<DraGpu> parse_dra_records(const std::string& text, const std::string& path) {
  json root = json::parse(text, nullptr, false);
  const std::string fix = "give `kubectl get resourceclaims,resourceslices -A -o json` output";
  if (root.is_discarded() || !root.is_object() || !root.contains("items") || !root["items"].is_array())
    throw InputError(path + ": not a Kubernetes List (no \"items\" array); " + fix);
  const json& items = root["items"];
  std::map<std::string, DraAttributes> devices = slice_devices(items);
  std::vector<DraGpu> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const json& item = items[i];
    if (str(item, "kind") != "ResourceClaim" || !item.contains("status") || !item["status"].is_object()) continue;
    const json& status = item["status"];
    const json results = status.contains("allocation") ? status["allocation"].value("devices", json::object()).value("results", json::array()) : json::array();
    if (!results.is_array()) throw InputError(where(path, i, item) + ": status.allocation.devices.results: expected a list; " + fix);
    DraGpu base;
    base.claim = str(item["metadata"], "namespace") + "/" + str(item["metadata"], "name");
    for (const json& r : status.value("reservedFor", json::array()))
      if (str(r, "resource") == "pods") base.pods.push_back(str(r, "name")), base.pod_uids.push_back(str(r, "uid"));
    for (const json& r : results) {
      DraGpu g = base;
      g.request = str(r, "request");
      g.driver = str(r, "driver");
      g.pool = str(r, "pool");
      g.device = str(r, "device");
      auto it = devices.find(g.driver + "/" + g.pool + "/" + g.device);
      if (it == devices.end()) {
        g.problem = fmt::format("no ResourceSlice of driver {} pool {} publishes device {}", g.driver, g.pool, g.device);
      } else {
        g.uuid = it->second.uuid;
        g.pci_bus_id = it->second.pci_bus_id;
        g.numa_node = it->second.numa_node;
        g.pcie_root = it->second.pcie_root;
      }
      out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<DraGpu> dra_gpus_of(const std::vector<DraGpu>& gpus, const std::string& pod_uid, const std::string& pod_name) {
  std::vector<DraGpu> out;
  for (const DraGpu& g : gpus) {
    auto has = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    if (g.container_own || (!pod_uid.empty() && has(g.pod_uids, pod_uid)) || (pod_uid.empty() && !pod_name.empty() && has(g.pods, pod_name)))
      out.push_back(g);
  }
  return out;
}

void merge_dra_records(std::vector<DraGpu>& records, std::vector<DraGpu> more) {
  for (DraGpu& m : more) {
    auto it = std::find_if(records.begin(), records.end(),
                           [&](const DraGpu& r) { return r.driver == m.driver && r.pool == m.pool && r.device == m.device; });
    if (it == records.end()) {
      records.push_back(std::move(m));
      continue;
    }
    if (it->uuid.empty()) it->uuid = m.uuid;
    if (it->pci_bus_id.empty()) it->pci_bus_id = m.pci_bus_id;
    if (!it->numa_node) it->numa_node = m.numa_node;
    if (it->pcie_root.empty()) it->pcie_root = m.pcie_root;
    if (!it->problem.empty() && m.problem.empty()) it->problem.clear();
    it->container_own = it->container_own || m.container_own;
    it->source += " and " + m.source;
  }
}

void check_dra(const std::vector<DraGpu>& all, const std::string& pod_uid, const std::string& pod_name,
               const AuditObservation& o, std::vector<std::string>& disagreements, std::vector<std::string>& notes) {
  std::map<int, std::vector<int>> nodes = node_cpus(o.inventory);
  std::set<int> cpu_nodes;
  for (const auto& [node, list] : nodes)
    for (int c : o.run_cpus)
      if (std::find(list.begin(), list.end(), c) != list.end()) cpu_nodes.insert(node);
  std::set<std::string> seen;
  for (const WorkloadGpu& w : o.workload_gpus.gpus)
    if (!w.uuid.empty()) seen.insert(w.uuid);
  for (const DraGpu& g : dra_gpus_of(all, pod_uid, pod_name)) {
    const std::string what = fmt::format("DRA GPU {} (claim {})", g.device, g.claim);
    if (!g.problem.empty()) {
      notes.push_back(what + " is not judged: " + g.problem);
      continue;
    }
    if (!g.numa_node) notes.push_back(what + ": no numaNode attribute (" + g.source + ")");
    else if (!cpu_nodes.empty() && !cpu_nodes.count(*g.numa_node))
      disagreements.push_back(fmt::format("{} on node {}, the process's CPUs on node(s) {}", what, *g.numa_node,
                                          hostpipe::format_cpulist({cpu_nodes.begin(), cpu_nodes.end()})));
    if (!g.uuid.empty() && !seen.empty() && !seen.count(g.uuid)) {
      std::string list;
      for (const std::string& s : seen) list += (list.empty() ? "" : ",") + s;
      disagreements.push_back(fmt::format("DRA allocated GPU {} ({}, claim {}), the container sees {}", g.uuid, g.device, g.claim, list));
    }
  }
}

}  // namespace placebench::harness
