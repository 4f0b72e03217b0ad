// Which of the node's GPUs a process's variables give it (see gpu_identity.h). First the container's set
// (NVIDIA_VISIBLE_DEVICES, as the container toolkit reads it: node indices are NVML's, in PCI bus order),
// then CUDA's selection within that set (CUDA_VISIBLE_DEVICES: indices count the container's GPUs in PCI
// bus order, UUIDs may be prefixes, and CUDA ignores everything from the first entry it cannot use).
#include <algorithm>
#include <cctype>
#include <set>

#include "placebench/harness/audit/gpu_identity.h"

namespace placebench::harness {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool starts_with_nocase(const std::string& s, const std::string& prefix) { return lower(s).rfind(lower(prefix), 0) == 0; }

std::vector<std::string> tokens_of(const std::string& value) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : value + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  return out;
}

std::optional<std::size_t> index_of(const std::string& token) {
  if (token.empty() || token.size() > 6 || !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return static_cast<std::size_t>(std::stoul(token));
}

std::string sources_text(const NodeGpuIds& ids) {
  std::string out;
  for (const std::string& s : ids.sources) out += (out.empty() ? "" : "; ") + s;
  return out.empty() ? "no source was read" : out;
}

std::string uuid_at(const NodeGpuIds& ids, const std::string& bus) {
  for (const NodeGpuId& g : ids.gpus)
    if (g.pci_bus_id == bus) return g.uuid;
  return "";
}

WorkloadGpu unknown(const std::string& named, const std::string& reason) {
  WorkloadGpu w;
  w.named = named;
  w.unknown_reason = reason;
  return w;
}

WorkloadGpu identified(const GpuInfo& g, const std::string& named, const std::string& uuid, const std::string& how) {
  WorkloadGpu w;
  w.named = named;
  w.gpu = g;
  w.uuid = uuid;
  w.how = how;
  return w;
}

// The node's GPU with this UUID, from every source that names it (they must agree on its bus id).
WorkloadGpu by_uuid(const std::vector<GpuInfo>& node, const NodeGpuIds& ids, const std::string& uuid, const std::string& named,
                    const std::string& variable) {
  std::set<std::string> buses;
  std::string source;
  for (const NodeGpuId& g : ids.gpus)
    if (lower(g.uuid) == lower(uuid)) buses.insert(g.pci_bus_id), source = source.empty() ? g.source : source;
  const std::string what = variable + " names " + named;
  if (buses.empty()) return unknown(named, what + ", which no source maps to a PCI bus id (" + sources_text(ids) + ")");
  if (buses.size() > 1) {
    std::string list;
    for (const std::string& b : buses) list += (list.empty() ? "" : " and ") + b;
    return unknown(named, what + ", which the sources place at " + list + ": they disagree");
  }
  const std::string bus = *buses.begin();
  auto it = std::find_if(node.begin(), node.end(), [&](const GpuInfo& g) { return g.pci_bus_id == bus; });
  if (it == node.end()) return unknown(named, what + ", at " + bus + " (" + source + "), but the topology has no GPU there");
  return identified(*it, named, uuid, named + " is " + bus + " (" + source + ")");
}

// MIG-GPU-<uuid>/<gi>/<ci> (drivers before R470) names its GPU; MIG-<uuid> only NVML can place.
WorkloadGpu by_mig(const std::vector<GpuInfo>& node, const NodeGpuIds& ids, const std::string& token, const std::string& variable) {
  std::string parent;
  if (starts_with_nocase(token, "MIG-GPU-")) parent = token.substr(4, token.find('/') == std::string::npos ? std::string::npos : token.find('/') - 4);
  for (const NodeMigId& m : ids.migs)
    if (lower(m.uuid) == lower(token)) parent = m.parent_uuid;
  if (parent.empty())
    return unknown(token, variable + " names MIG device " + token + ", which only NVML maps to its GPU (" + sources_text(ids) + ")");
  WorkloadGpu w = by_uuid(node, ids, parent, token, variable);
  w.uuid = token;
  if (w.gpu) w.how = token + " is a MIG device of " + w.how;
  return w;
}

WorkloadGpu by_node_index(const std::vector<GpuInfo>& node, const NodeGpuIds& ids, const std::string& token) {
  std::string gpu_part = token.substr(0, token.find(':'));  // "1:0" is MIG device 0 of GPU 1
  std::optional<std::size_t> i = index_of(gpu_part);
  if (!i || *i >= node.size())
    return unknown(token, "NVIDIA_VISIBLE_DEVICES names GPU " + token + ", but the topology has " + std::to_string(node.size()) +
                              " GPU(s) (indices 0-" + std::to_string(node.size() == 0 ? 0 : node.size() - 1) + ")");
  const GpuInfo& g = node[*i];
  return identified(g, token, uuid_at(ids, g.pci_bus_id),
                    "node GPU " + gpu_part + " (NVML's index, PCI bus order) is " + g.pci_bus_id +
                        (token.find(':') == std::string::npos ? "" : " (MIG device " + token.substr(token.find(':') + 1) + " of it)"));
}

WorkloadGpu by_token(const std::vector<GpuInfo>& node, const NodeGpuIds& ids, const std::string& token) {
  const std::string variable = "NVIDIA_VISIBLE_DEVICES";
  if (starts_with_nocase(token, "GPU-")) return by_uuid(node, ids, token, token, variable);
  if (starts_with_nocase(token, "MIG-")) return by_mig(node, ids, token, variable);
  if (index_of(token.substr(0, token.find(':')))) return by_node_index(node, ids, token);
  return unknown(token, variable + " names " + token + ", which is not a GPU index, UUID (GPU-...) or MIG device (MIG-...)");
}

std::vector<WorkloadGpu> all_of_node(const std::vector<GpuInfo>& node, const NodeGpuIds& ids, const std::string& why) {
  std::vector<WorkloadGpu> set;
  for (const GpuInfo& g : node) set.push_back(identified(g, std::to_string(g.index), uuid_at(ids, g.pci_bus_id), why + ": " + g.pci_bus_id));
  return set;
}

// The GPUs the container toolkit gave the process, in the order its CUDA counts them (PCI bus order).
std::vector<WorkloadGpu> container_set(const std::vector<GpuInfo>& node, const NodeGpuIds& ids,
                                       const std::optional<std::string>& nvidia_visible, WorkloadGpus& out) {
  if (!nvidia_visible) {
    out.notes.push_back("NVIDIA_VISIBLE_DEVICES is not set: every GPU of the node is taken as the process's (no container toolkit filter)");
    return all_of_node(node, ids, "every GPU of the node");
  }
  const std::vector<std::string> tokens = tokens_of(*nvidia_visible);
  const std::string value = tokens.size() == 1 ? lower(tokens[0]) : std::string();
  if (value == "all") return all_of_node(node, ids, "NVIDIA_VISIBLE_DEVICES=all");
  if (tokens.empty() || value == "none" || value == "void") {
    out.no_gpu_reason = "NVIDIA_VISIBLE_DEVICES=" + *nvidia_visible + ": the container toolkit gives the process no GPU";
    return {};
  }
  if (tokens.size() == 1 && tokens[0].front() == '/')  // the device plugin's volume-mounts strategy
    return {unknown(tokens[0], "NVIDIA_VISIBLE_DEVICES=" + tokens[0] +
                                   ": the GPUs are listed as mounts under that directory in the container, which this audit does not read")};
  std::vector<WorkloadGpu> set;
  std::set<std::string> seen;
  for (const std::string& t : tokens) {
    WorkloadGpu w = by_token(node, ids, t);
    std::string key = w.gpu ? w.gpu->pci_bus_id + "/" + lower(w.uuid) : "?" + t;
    if (seen.insert(key).second) set.push_back(std::move(w));
  }
  std::stable_sort(set.begin(), set.end(), [](const WorkloadGpu& a, const WorkloadGpu& b) {
    if (a.gpu.has_value() != b.gpu.has_value()) return a.gpu.has_value();
    return a.gpu && a.gpu->pci_bus_id < b.gpu->pci_bus_id;
  });
  return set;
}

// CUDA_VISIBLE_DEVICES within the container's set: CUDA takes entries in order and ignores the rest from
// the first it cannot use (an index out of range, a repeat, a UUID it does not see, "-1").
// Why CUDA's indices may not follow PCI bus order: CUDA_DEVICE_ORDER other than PCI_BUS_ID (the default is
// FASTEST_FIRST) over GPUs of different models puts the fastest first. "" when the order is PCI bus order.
std::string order_problem(const std::vector<WorkloadGpu>& set, const std::optional<std::string>& order) {
  if (order && *order == "PCI_BUS_ID") return "";
  std::set<std::string> models;
  for (const WorkloadGpu& w : set)
    if (w.gpu && !w.gpu->name.empty()) models.insert(w.gpu->name);
  if (models.size() < 2) return "";
  std::string list;
  for (const std::string& m : models) list += (list.empty() ? "" : ", ") + m;
  return "CUDA_DEVICE_ORDER is " + (order ? *order : std::string("unset (FASTEST_FIRST)")) +
         " and the container's GPUs are of different models (" + list + "): CUDA numbers the fastest first, not in PCI bus order";
}

std::vector<WorkloadGpu> cuda_selection(const std::vector<WorkloadGpu>& set, const std::string& value,
                                        const std::optional<std::string>& order, WorkloadGpus& out) {
  const bool set_known = std::all_of(set.begin(), set.end(), [](const WorkloadGpu& w) { return w.unknown_reason.empty(); });
  const std::string reorder = order_problem(set, order);
  std::vector<WorkloadGpu> chosen;
  std::set<std::size_t> taken;
  for (const std::string& t : tokens_of(value)) {
    std::optional<std::size_t> pick;
    if (std::optional<std::size_t> i = index_of(t)) {
      if (!set_known) {
        chosen.push_back(unknown(t, "CUDA_VISIBLE_DEVICES index " + t + " counts the container's GPUs, whose order is unknown: " +
                                        std::find_if(set.begin(), set.end(), [](const WorkloadGpu& w) { return !w.gpu; })->unknown_reason));
        continue;
      }
      if (!reorder.empty() && set.size() > 1) {
        chosen.push_back(unknown(t, "CUDA_VISIBLE_DEVICES index " + t + " counts the container's GPUs in CUDA's order, which is unknown: " + reorder));
        continue;
      }
      if (*i < set.size()) pick = *i;
    } else if (starts_with_nocase(t, "GPU-") || starts_with_nocase(t, "MIG-")) {
      std::vector<std::size_t> matches;
      for (std::size_t k = 0; k < set.size(); ++k)
        if (!set[k].uuid.empty() && starts_with_nocase(set[k].uuid, t)) matches.push_back(k);
      bool some_unnamed = std::any_of(set.begin(), set.end(), [](const WorkloadGpu& w) { return w.uuid.empty(); });
      if (matches.empty() && some_unnamed) {
        chosen.push_back(unknown(t, "CUDA_VISIBLE_DEVICES names " + t + ", and not every GPU of the container has a known UUID to match it with"));
        continue;
      }
      if (matches.size() == 1) pick = matches.front();
    }
    if (!pick || !taken.insert(*pick).second) {
      out.notes.push_back("CUDA_VISIBLE_DEVICES=" + value + ": CUDA ignores " + t + " and every entry after it (not a GPU of the container's, or a repeat)");
      break;
    }
    WorkloadGpu w = set[*pick];
    w.how = "CUDA_VISIBLE_DEVICES " + t + " is the container's GPU " + std::to_string(*pick) + ", " + (w.how.empty() ? w.named : w.how);
    chosen.push_back(std::move(w));
  }
  if (chosen.empty()) out.no_gpu_reason = "CUDA_VISIBLE_DEVICES=" + value + ": CUDA sees no GPU";
  return chosen;
}

}  // namespace

bool same_gpu_uuid(const std::string& a, const std::string& b) { return !a.empty() && lower(a) == lower(b); }

WorkloadGpus resolve_workload_gpus(const std::vector<GpuInfo>& node_gpus, const NodeGpuIds& ids,
                                   const std::optional<std::string>& nvidia_visible,
                                   const std::optional<std::string>& cuda_visible,
                                   const std::optional<std::string>& cuda_device_order) {
  WorkloadGpus out;
  std::vector<WorkloadGpu> set = container_set(node_gpus, ids, nvidia_visible, out);
  if (set.empty()) return out;
  const std::string reorder = order_problem(set, cuda_device_order);
  if (!cuda_visible && !reorder.empty())
    out.notes.push_back("the GPUs' CUDA indices are not PCI bus order (" + reorder + "): each GPU is judged by its bus id, its index may differ");
  out.gpus = cuda_visible ? cuda_selection(set, *cuda_visible, cuda_device_order, out) : std::move(set);
  for (std::size_t i = 0; i < out.gpus.size(); ++i) out.gpus[i].index = static_cast<int>(i);
  const bool any_index = cuda_visible && std::any_of(out.gpus.begin(), out.gpus.end(), [](const WorkloadGpu& w) { return w.gpu.has_value(); });
  if (any_index && cuda_device_order && *cuda_device_order == "PCI_BUS_ID")
    out.notes.push_back("CUDA_VISIBLE_DEVICES indices count the container's GPUs in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID)");
  else if (any_index)
    out.notes.push_back("CUDA_VISIBLE_DEVICES indices are taken to count the container's GPUs in PCI bus order: CUDA_DEVICE_ORDER is " +
                        (cuda_device_order ? *cuda_device_order : std::string("unset")) +
                        " (fastest first), which is PCI bus order for GPUs of one model");
  return out;
}

}  // namespace placebench::harness
