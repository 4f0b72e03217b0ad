// `topo --json`: the inventory's JSON writer (the documented schema, docs/cli.md) and its one reader
// (inventory_read.h: `topo --expect` and `fleet`, for run.json's topology), each key spelled once. The
// reader accepts what the writer writes and nothing else, with the file, the field and the fix in every
// refusal.
#include <fmt/format.h>

#include <cctype>
#include <stdexcept>
#include <string_view>

#include "placebench/harness/errors.h"
#include "placebench/harness/text_clip.h"
#include "placebench/harness/topology/inventory_format.h"
#include "placebench/harness/topology/inventory_read.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

using nlohmann::json;

// The keys of topo --json, for the writer and the reader.
constexpr const char *kSchemaVersion = "schema_version", *kSource = "source", *kHost = "host",
                     *kPackages = "packages", *kNumaNodes = "numa_nodes", *kOsIndex = "os_index", *kCpus = "cpus",
                     *kMemoryBytes = "memory_bytes", *kDistances = "distances", *kCores = "cores", *kPus = "pus",
                     *kGpus = "gpus", *kHiddenGpus = "hidden_gpus", *kIndex = "index", *kPciIndex = "pci_index",
                     *kName = "name", *kPciBusId = "pci_bus_id", *kNumaNode = "numa_node", *kLocalCpus = "local_cpus",
                     *kOsDevices = "os_devices", *kNotes = "notes", *kNics = "nics", *kKind = "kind",
                     *kAllowed = "allowed", *kMems = "mems";

json node_json(int node) { return node < 0 ? json(nullptr) : json(node); }

json gpu_json(const GpuInfo& g) {
  json e{{kIndex, g.index},         {kName, g.name},     {kPciBusId, g.pci_bus_id},   {kNumaNode, node_json(g.numa_node)},
         {kLocalCpus, g.local_cpus}, {kOsDevices, g.os_devices}, {kNotes, g.notes}};
  if (g.pci_index >= 0) e[kPciIndex] = g.pci_index;  // live nodes: hwloc's index beside CUDA's
  return e;
}

}  // namespace

json inventory_to_json(const Inventory& inv) {
  json j;
  j[kSchemaVersion] = inv.schema_version;
  j[kSource] = inv.source;
  j[kHost] = inv.host;
  j[kPackages] = json::array();
  for (const auto& p : inv.packages) j[kPackages].push_back({{kOsIndex, p.os_index}, {kCpus, p.cpus}});
  j[kNumaNodes] = json::array();
  for (const auto& n : inv.numa_nodes)
    j[kNumaNodes].push_back({{kOsIndex, n.os_index}, {kCpus, n.cpus}, {kMemoryBytes, n.memory_bytes}});
  j[kDistances] = inv.distances ? json(*inv.distances) : json(nullptr);
  j[kCores] = inv.cores;
  j[kPus] = inv.pus;
  j[kGpus] = json::array();
  for (const auto& g : inv.gpus) j[kGpus].push_back(gpu_json(g));
  if (!inv.hidden_gpus.empty()) {
    j[kHiddenGpus] = json::array();
    for (const auto& g : inv.hidden_gpus) j[kHiddenGpus].push_back(gpu_json(g));
  }
  j[kNics] = json::array();
  for (const auto& n : inv.nics)
    j[kNics].push_back({{kName, n.name}, {kKind, n.kind}, {kPciBusId, n.pci_bus_id}, {kNumaNode, node_json(n.numa_node)}});
  j[kAllowed] = {{kCpus, inv.allowed_cpus}, {kMems, inv.allowed_mems}};
  j[kNotes] = inv.notes;
  return j;
}

namespace {

constexpr long long kMaxUnsigned = 0xFFFFFFFF, kMaxSigned = 0x7FFFFFFFFFFFFFFF;

struct Reader {
  const std::string& path;
  const std::string& fix;

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw InputError(fmt::format("{}: {}: {}; {}", path, where, problem, fix));
  }

  // An integer field in [lo, hi]: nlohmann's get<int> of 1e20 or 4294967296 would be undefined or wrap.
  long long integer(const json& v, long long lo, long long hi, const std::string& where) const {
    bool ok = v.is_number_integer() &&
              (v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi)
                                      : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi);
    if (!ok) {
      std::string found = v.dump();
      if (found.size() > 40) found = utf8_prefix(found, 40) + "...";
      fail(where, fmt::format("expected an integer from {} to {}, found {}", lo, hi, found));
    }
    return v.get<long long>();
  }
  int node_or_unknown(const json& v, const std::string& where) const {
    return v.is_null() ? -1 : static_cast<int>(integer(v, 0, kMaxNumaNodeId, where));
  }
  const json& list(const json& j, const char* key) const {
    if (!j.contains(key) || !j.at(key).is_array()) fail(key, "missing or not a list");
    return j.at(key);
  }
  // Runs `read` for one entry; a value of the wrong type is refused naming that entry (nlohmann's own
  // message without its "[json.exception...]" tag).
  template <class F>
  void entry(const std::string& where, F&& read) const {
    try {
      read();
    } catch (const json::exception& e) {
      std::string what = e.what();
      std::size_t tag = what.find("] ");
      fail(where, fmt::format("not a topo --json inventory ({})", tag == std::string::npos ? what : what.substr(tag + 2)));
    }
  }
  // A cpulist ("0-15"); "zz" is refused, not compared as text.
  std::string cpulist(const json& obj, const char* key, const std::string& where, bool required) const {
    if (!obj.contains(key) && !required) return "";
    const std::string text = obj.at(key).get<std::string>();
    try {
      hostpipe::parse_cpulist(text);
    } catch (const std::invalid_argument& e) {
      fail(where + "." + key, fmt::format("not a cpulist ({})", e.what()));
    }
    return text;
  }
};

std::string item(const char* list, std::size_t i) { return fmt::format("{}[{}]", list, i); }

void read_numa_nodes(const Reader& r, const json& j, Inventory& inv) {
  const json& nodes = r.list(j, kNumaNodes);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = item(kNumaNodes, i);
    const json& n = nodes[i];
    r.entry(where, [&] {
      const json& bytes = n.contains(kMemoryBytes) ? n.at(kMemoryBytes) : json(0);
      inv.numa_nodes.push_back(
          {static_cast<unsigned>(r.integer(n.at(kOsIndex), 0, kMaxNumaNodeId, where + "." + kOsIndex)),
           r.cpulist(n, kCpus, where, true),
           static_cast<std::uint64_t>(r.integer(bytes, 0, kMaxSigned, where + "." + kMemoryBytes))});
    });
  }
}

void read_distances(const Reader& r, const json& j, Inventory& inv) {
  if (!j.contains(kDistances) || j[kDistances].is_null()) return;
  const json& rows = r.list(j, kDistances);
  bool square = rows.size() == inv.numa_nodes.size();
  inv.distances.emplace();
  for (std::size_t i = 0; square && i < rows.size(); ++i) {
    square = rows[i].is_array() && rows[i].size() == inv.numa_nodes.size();
    inv.distances->emplace_back();
    for (std::size_t k = 0; square && k < rows[i].size(); ++k)
      inv.distances->back().push_back(
          static_cast<std::uint64_t>(r.integer(rows[i][k], 0, kMaxSigned, fmt::format("{}[{}]", item(kDistances, i), k))));
  }
  if (!square)
    r.fail(kDistances, fmt::format("not a {}x{} matrix (one row and column per NUMA node)", inv.numa_nodes.size(),
                                   inv.numa_nodes.size()));
}

void read_gpus(const Reader& r, const json& j, Inventory& inv) {
  for (const char* key : {kGpus, kHiddenGpus}) {
    if (!j.contains(key)) continue;
    const json& gpus = r.list(j, key);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const std::string where = item(key, i);
      const json& g = gpus[i];
      GpuInfo gpu;
      r.entry(where, [&] {
        gpu.index = static_cast<int>(r.integer(g.at(kIndex), -1, 0x7FFFFFFF, where + "." + kIndex));
        gpu.name = g.value(kName, "");
        gpu.pci_bus_id = normalized_pci_bus_id(g.value(kPciBusId, ""));
        gpu.numa_node = r.node_or_unknown(g.at(kNumaNode), where + "." + kNumaNode);
        gpu.local_cpus = r.cpulist(g, kLocalCpus, where, false);
      });
      (std::string_view(key) == kGpus ? inv.gpus : inv.hidden_gpus).push_back(gpu);
    }
  }
}

void read_nics(const Reader& r, const json& j, Inventory& inv) {
  const json& nics = r.list(j, kNics);
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const json& n = nics[i];
    const std::string where = item(kNics, i);
    r.entry(where, [&] {
      inv.nics.push_back({n.at(kName).get<std::string>(), n.value(kKind, ""), normalized_pci_bus_id(n.value(kPciBusId, "")),
                          r.node_or_unknown(n.at(kNumaNode), where + "." + kNumaNode)});
    });
  }
}

}  // namespace

std::string normalized_pci_bus_id(std::string id) {
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t colon = id.find(':');
  if (colon != std::string::npos && colon > 4 && id.find_first_not_of('0') >= colon - 4) id.erase(0, colon - 4);
  return id;
}

Inventory inventory_from_json(const json& j, const std::string& path, const std::string& fix) {
  const Reader r{path, fix};
  if (!j.is_object()) throw InputError(path + ": not a JSON object; " + fix);
  if (!j.contains(kSchemaVersion)) r.fail(kSchemaVersion, "missing");
  long long version = r.integer(j.at(kSchemaVersion), 0, 0x7FFFFFFF, kSchemaVersion);
  if (version != kInventorySchemaVersion)
    throw InputError(fmt::format("{}: {} {} (this placebench reads {}); {}", path, kSchemaVersion, version,
                                 kInventorySchemaVersion, fix));
  Inventory inv;
  inv.source = path;
  r.entry(kHost, [&] { inv.host = j.value(kHost, ""); });
  read_numa_nodes(r, j, inv);
  read_distances(r, j, inv);
  if (!j.contains(kCores) || !j.contains(kPus)) r.fail(fmt::format("{} and {}", kCores, kPus), "missing");
  inv.cores = static_cast<unsigned>(r.integer(j.at(kCores), 0, kMaxUnsigned, kCores));
  inv.pus = static_cast<unsigned>(r.integer(j.at(kPus), 0, kMaxUnsigned, kPus));
  read_gpus(r, j, inv);
  read_nics(r, j, inv);
  return inv;
}

}  // namespace placebench::harness
