// Reading `topo --json` back (see inventory_read.h): accepts what inventory_to_json writes and nothing
// else, with the file, the field and the fix in every refusal.
#include "placebench/harness/text_clip.h"
#include "placebench/harness/topology/inventory_read.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

#include "placebench/harness/errors.h"
#include "placebench/harness/topology/inventory_format.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

using nlohmann::json;

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

void read_numa_nodes(const Reader& r, const json& j, Inventory& inv) {
  const json& nodes = r.list(j, "numa_nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = fmt::format("numa_nodes[{}]", i);
    const json& n = nodes[i];
    r.entry(where, [&] {
      const json& bytes = n.contains("memory_bytes") ? n.at("memory_bytes") : json(0);
      inv.numa_nodes.push_back({static_cast<unsigned>(r.integer(n.at("os_index"), 0, kMaxNumaNodeId, where + ".os_index")),
                                r.cpulist(n, "cpus", where, true),
                                static_cast<std::uint64_t>(r.integer(bytes, 0, kMaxSigned, where + ".memory_bytes"))});
    });
  }
}

void read_distances(const Reader& r, const json& j, Inventory& inv) {
  if (!j.contains("distances") || j["distances"].is_null()) return;
  const json& rows = r.list(j, "distances");
  bool square = rows.size() == inv.numa_nodes.size();
  inv.distances.emplace();
  for (std::size_t i = 0; square && i < rows.size(); ++i) {
    square = rows[i].is_array() && rows[i].size() == inv.numa_nodes.size();
    inv.distances->emplace_back();
    for (std::size_t k = 0; square && k < rows[i].size(); ++k)
      inv.distances->back().push_back(
          static_cast<std::uint64_t>(r.integer(rows[i][k], 0, kMaxSigned, fmt::format("distances[{}][{}]", i, k))));
  }
  if (!square)
    r.fail("distances", fmt::format("not a {}x{} matrix (one row and column per NUMA node)", inv.numa_nodes.size(),
                                    inv.numa_nodes.size()));
}

void read_gpus(const Reader& r, const json& j, Inventory& inv) {
  for (const char* key : {"gpus", "hidden_gpus"}) {
    if (!j.contains(key)) continue;
    const json& gpus = r.list(j, key);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const std::string where = fmt::format("{}[{}]", key, i);
      const json& g = gpus[i];
      GpuInfo gpu;
      r.entry(where, [&] {
        gpu.index = static_cast<int>(r.integer(g.at("index"), -1, 0x7FFFFFFF, where + ".index"));
        gpu.name = g.value("name", "");
        gpu.pci_bus_id = normalized_pci_bus_id(g.value("pci_bus_id", ""));
        gpu.numa_node = r.node_or_unknown(g.at("numa_node"), where + ".numa_node");
        gpu.local_cpus = r.cpulist(g, "local_cpus", where, false);
      });
      (std::string(key) == "gpus" ? inv.gpus : inv.hidden_gpus).push_back(gpu);
    }
  }
}

void read_nics(const Reader& r, const json& j, Inventory& inv) {
  const json& nics = r.list(j, "nics");
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const json& n = nics[i];
    const std::string where = fmt::format("nics[{}]", i);
    r.entry(where, [&] {
      inv.nics.push_back({n.at("name").get<std::string>(), n.value("kind", ""), normalized_pci_bus_id(n.value("pci_bus_id", "")),
                          r.node_or_unknown(n.at("numa_node"), where + ".numa_node")});
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
  if (!j.contains("schema_version")) r.fail("schema_version", "missing");
  long long version = r.integer(j.at("schema_version"), 0, 0x7FFFFFFF, "schema_version");
  if (version != kInventorySchemaVersion)
    throw InputError(fmt::format("{}: schema_version {} (this placebench reads {}); {}", path, version, kInventorySchemaVersion, fix));
  Inventory inv;
  inv.source = path;
  r.entry("host", [&] { inv.host = j.value("host", ""); });
  read_numa_nodes(r, j, inv);
  read_distances(r, j, inv);
  if (!j.contains("cores") || !j.contains("pus")) r.fail("cores and pus", "missing");
  inv.cores = static_cast<unsigned>(r.integer(j.at("cores"), 0, kMaxUnsigned, "cores"));
  inv.pus = static_cast<unsigned>(r.integer(j.at("pus"), 0, kMaxUnsigned, "pus"));
  read_gpus(r, j, inv);
  read_nics(r, j, inv);
  return inv;
}

}  // namespace placebench::harness
