// Builds the node inventory from an hwloc topology (see inventory.h).
#include "placebench/harness/topology/inventory.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>

namespace placebench::harness {
namespace {

constexpr unsigned kNvidiaVendorId = 0x10de;

std::string list_string(hwloc_const_bitmap_t set) {
  if (!set || hwloc_bitmap_iszero(set)) return "";
  char* s = nullptr;
  hwloc_bitmap_list_asprintf(&s, set);
  std::string out = s ? s : "";
  free(s);
  return out;
}

std::string info(hwloc_obj_t obj, const char* key) {
  const char* v = obj ? hwloc_obj_get_info_by_name(obj, key) : nullptr;
  return v ? v : "";
}

std::string pci_bus_id(hwloc_obj_t pcidev) {
  if (!pcidev || pcidev->type != HWLOC_OBJ_PCI_DEVICE) return "";
  char buf[32];
  const auto& p = pcidev->attr->pcidev;
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
  return buf;
}

hwloc_obj_t pci_parent(hwloc_obj_t osdev) {
  for (hwloc_obj_t o = osdev->parent; o; o = o->parent)
    if (o->type == HWLOC_OBJ_PCI_DEVICE) return o;
  return nullptr;
}

// The NUMA nodes attached to obj itself (its memory children, through memory-side caches).
void attached_nodes(hwloc_obj_t obj, std::vector<hwloc_obj_t>& out) {
  for (hwloc_obj_t m = obj->memory_first_child; m; m = m->next_sibling) {
    if (m->type == HWLOC_OBJ_NUMANODE) out.push_back(m);
    else attached_nodes(m, out);
  }
}

// NUMA node and local CPUs of an I/O object: those of its closest non-I/O ancestor. The ancestor's
// nodeset also holds nodes attached above it (a CPU-less CXL or HBM node hanging from the Machine is
// local to every package), so with several, the one attached to the ancestor itself is the node; if
// several are attached there, the one without a subtype (plain DRAM beside "HBM" or "CXL" memory).
void locality(hwloc_topology_t topo, hwloc_obj_t io, int& numa_node, std::string& local_cpus) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, io);
  numa_node = -1;
  local_cpus.clear();
  if (!anc) return;
  local_cpus = list_string(anc->cpuset);
  if (!anc->nodeset) return;
  if (hwloc_bitmap_weight(anc->nodeset) == 1) {
    numa_node = hwloc_bitmap_first(anc->nodeset);
    return;
  }
  std::vector<hwloc_obj_t> nodes;
  attached_nodes(anc, nodes);
  if (nodes.size() > 1)
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [](hwloc_obj_t n) { return n->subtype != nullptr; }), nodes.end());
  if (nodes.size() == 1) numa_node = static_cast<int>(nodes.front()->os_index);
}

bool is_nvidia_gpu_osdev(hwloc_obj_t o) {
  if (o->type != HWLOC_OBJ_OS_DEVICE || !o->name) return false;
  auto t = o->attr->osdev.type;
  if (t != HWLOC_OBJ_OSDEV_GPU && t != HWLOC_OBJ_OSDEV_COPROC) return false;
  std::string name = o->name;
  if (name.rfind("cuda", 0) == 0 || name.rfind("nvml", 0) == 0) return true;
  if (name.rfind("opencl", 0) == 0) return info(o, "GPUVendor").find("NVIDIA") != std::string::npos;
  return false;
}

// The index at the end of an OS device name ("cuda3" -> 3); -1 when there is none or it does not fit
// an int (a name from a file can hold anything).
int trailing_number(const std::string& s) {
  std::size_t start = s.find_last_not_of("0123456789") + 1;  // npos + 1 == 0: all digits
  int v = -1;
  if (start >= s.size()) return -1;
  auto [end, ec] = std::from_chars(s.data() + start, s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : -1;
}

struct GpuCandidate {
  GpuInfo gpu;
  int cuda_index = -1;
  int nvml_index = -1;
};

std::vector<GpuInfo> collect_gpus(hwloc_topology_t topo, bool pci_fallback, std::vector<std::string>& notes) {
  // Group GPU OS devices by their PCI parent: cuda0, opencl0d0 and nvml0 are one GPU.
  std::map<std::string, GpuCandidate> by_key;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(topo, o));) {
    if (!is_nvidia_gpu_osdev(o)) continue;
    hwloc_obj_t pci = pci_parent(o);
    std::string key = pci ? pci_bus_id(pci) : std::string("osdev:") + o->name;
    GpuCandidate& c = by_key[key];
    c.gpu.pci_bus_id = pci ? pci_bus_id(pci) : "";
    c.gpu.os_devices.push_back(o->name);
    std::string name = o->name;
    if (name.rfind("cuda", 0) == 0) c.cuda_index = trailing_number(name);
    if (name.rfind("nvml", 0) == 0) c.nvml_index = trailing_number(name);
    if (c.gpu.name.empty()) c.gpu.name = info(o, "GPUModel");
    if (c.gpu.uuid.empty()) c.gpu.uuid = info(o, "NVIDIAUUID");
    if (c.gpu.name.empty()) c.gpu.name = info(pci, "PCIDevice");
    locality(topo, pci ? pci : o, c.gpu.numa_node, c.gpu.local_cpus);
  }
  // NVIDIA PCI display controllers (class 0x03xx) with no GPU OS device: GPUs only when asked to
  // (see PciGpuFallback), else said in the notes.
  bool use_pci = pci_fallback && by_key.empty();
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_pcidev(topo, o));) {
    const auto& p = o->attr->pcidev;
    if (p.vendor_id != kNvidiaVendorId || (p.class_id >> 8) != 0x03 || by_key.count(pci_bus_id(o))) continue;
    if (!use_pci) {
      notes.push_back("NVIDIA PCI device " + pci_bus_id(o) + " has no CUDA/NVML OS device: not counted as a GPU" +
                      (by_key.empty() ? " (use --pci-gpus on to count it)" : ""));
      continue;
    }
    {
      GpuCandidate& c = by_key[pci_bus_id(o)];
      c.gpu.pci_bus_id = pci_bus_id(o);
      c.gpu.name = info(o, "PCIDevice");
      if (c.gpu.name.empty()) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "NVIDIA [10de:%04x]", p.device_id);
        c.gpu.name = buf;
      }
      locality(topo, o, c.gpu.numa_node, c.gpu.local_cpus);
    }
  }
  std::vector<GpuCandidate> cands;
  for (auto& [key, c] : by_key) cands.push_back(std::move(c));
  // CUDA order when hwloc knows it, then NVML order, then PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID).
  std::stable_sort(cands.begin(), cands.end(), [](const GpuCandidate& a, const GpuCandidate& b) {
    auto rank = [](const GpuCandidate& c) { return c.cuda_index >= 0 ? c.cuda_index : c.nvml_index; };
    int ra = rank(a), rb = rank(b);
    if (ra >= 0 && rb >= 0 && ra != rb) return ra < rb;
    if ((ra >= 0) != (rb >= 0)) return ra >= 0;
    return a.gpu.pci_bus_id < b.gpu.pci_bus_id;
  });
  std::vector<GpuInfo> gpus;
  for (size_t i = 0; i < cands.size(); ++i) {
    cands[i].gpu.index = static_cast<int>(i);
    gpus.push_back(std::move(cands[i].gpu));
  }
  return gpus;
}

std::vector<NicInfo> collect_nics(hwloc_topology_t topo) {
  std::vector<NicInfo> nics;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(topo, o));) {
    auto t = o->attr->osdev.type;
    if (t != HWLOC_OBJ_OSDEV_NETWORK && t != HWLOC_OBJ_OSDEV_OPENFABRICS) continue;
    NicInfo nic;
    nic.name = o->name ? o->name : "";
    nic.kind = t == HWLOC_OBJ_OSDEV_NETWORK ? "network" : "openfabrics";
    hwloc_obj_t pci = pci_parent(o);
    nic.pci_bus_id = pci_bus_id(pci);
    std::string cpus;
    locality(topo, pci ? pci : o, nic.numa_node, cpus);
    nics.push_back(std::move(nic));
  }
  return nics;
}

void collect_distances(hwloc_topology_t topo, Inventory& inv) {
  unsigned nr = 1;
  hwloc_distances_s* dist = nullptr;
  if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist, 0, 0) != 0 || nr == 0) return;
  // Map matrix objects to our os_index order; use the matrix only when it covers every node.
  std::vector<int> pos(dist->nbobjs, -1);
  for (unsigned i = 0; i < dist->nbobjs; ++i)
    for (size_t k = 0; k < inv.numa_nodes.size(); ++k)
      if (dist->objs[i] && dist->objs[i]->os_index == inv.numa_nodes[k].os_index) pos[i] = static_cast<int>(k);
  size_t n = inv.numa_nodes.size();
  if (dist->nbobjs == n && std::none_of(pos.begin(), pos.end(), [](int p) { return p < 0; })) {
    std::vector<std::vector<std::uint64_t>> m(n, std::vector<std::uint64_t>(n, 0));
    for (unsigned i = 0; i < dist->nbobjs; ++i)
      for (unsigned j = 0; j < dist->nbobjs; ++j) m[static_cast<std::size_t>(pos[i])][static_cast<std::size_t>(pos[j])] = dist->values[i * dist->nbobjs + j];
    inv.distances = std::move(m);
  }
  hwloc_distances_release(topo, dist);
}

}  // namespace

Inventory build_inventory(const Topology& topology, PciGpuFallback pci_fallback) {
  hwloc_topology_t topo = topology.get();
  Inventory inv;
  inv.source = topology.source();
  hwloc_obj_t root = hwloc_get_root_obj(topo);
  inv.host = info(root, "HostName");

  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, o));)
    inv.packages.push_back({o->os_index, list_string(o->cpuset)});
  std::sort(inv.packages.begin(), inv.packages.end(),
            [](const PackageInfo& a, const PackageInfo& b) { return a.os_index < b.os_index; });
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o));)
    inv.numa_nodes.push_back({o->os_index, list_string(o->cpuset), o->attr->numanode.local_memory});
  std::sort(inv.numa_nodes.begin(), inv.numa_nodes.end(),
            [](const NumaNodeInfo& a, const NumaNodeInfo& b) { return a.os_index < b.os_index; });
  inv.cores = static_cast<unsigned>(std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)));
  inv.pus = static_cast<unsigned>(std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)));
  collect_distances(topo, inv);
  bool fallback = pci_fallback == PciGpuFallback::kOn || (pci_fallback == PciGpuFallback::kAuto && topology.is_live());
  inv.gpus = collect_gpus(topo, fallback, inv.notes);
  inv.nics = collect_nics(topo);
  inv.allowed_cpus = list_string(hwloc_topology_get_allowed_cpuset(topo));
  inv.allowed_mems = list_string(hwloc_topology_get_allowed_nodeset(topo));
  for (const GpuInfo& g : inv.gpus)
    if (g.numa_node < 0)
      inv.notes.push_back("GPU " + std::to_string(g.index) + ": hwloc places it above several NUMA nodes; "
                          "its NUMA node is unknown");
  return inv;
}

}  // namespace placebench::harness
