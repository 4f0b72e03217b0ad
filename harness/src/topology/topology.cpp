// Loading and saving hwloc topologies (see topology.h).
#include "placebench/harness/topology/topology.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

hwloc_topology_t init_with_io() {
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) throw std::runtime_error("hwloc_topology_init failed");
  // Keep GPUs, NICs and their PCI parents; drop bridges that lead nowhere.
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // See the whole machine, and mark what the cgroup allows, instead of hiding the rest.
  hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  return topo;
}

// Reads enough of the file to say what is wrong with it before hwloc does (hwloc's own messages
// are multi-line and do not name the file).
void precheck_xml(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path + ": cannot open topology file (" + std::strerror(errno) +
                     "); give an hwloc XML file saved with `placebench topo --export FILE.xml` or `lstopo FILE.xml`");
  }
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  std::smatch m;
  if (!std::regex_search(head, m, std::regex("<topology(\\s[^>]*)?>"))) {
    throw InputError(path + ": not an hwloc topology XML (no <topology> element in the first 4 KiB); "
                     "save one with `placebench topo --export FILE.xml` or `lstopo FILE.xml`");
  }
  std::smatch v;
  std::string attrs = m[1].str();
  if (std::regex_search(attrs, v, std::regex("version=\"([0-9]+)(\\.[0-9]+)?\""))) {
    int major = std::stoi(v[1].str());
    if (major > 2) {  // hwloc 2.x reads XML v1 and v2 only
      throw InputError(path + ": hwloc XML version " + v[1].str() + v[2].str() + " is newer than this hwloc (" +
                       hwloc_runtime_version() + ") reads; export it as v2 (`lstopo --export-xml-flags v2 FILE.xml` "
                       "with hwloc 3) or with hwloc 2.x");
    }
  }
}

}  // namespace

std::string hwloc_runtime_version() {
  // The release this binary was built against; the library's API version (hwloc_get_api_version)
  // only changes with the API, not with each release.
  return HWLOC_VERSION;
}

Topology::Topology(hwloc_topology_t topo, bool live, std::string source)
    : topo_(topo), live_(live), source_(std::move(source)) {}

Topology::Topology(Topology&& other) noexcept
    : topo_(other.topo_), live_(other.live_), source_(std::move(other.source_)) {
  other.topo_ = nullptr;
}

Topology& Topology::operator=(Topology&& other) noexcept {
  if (this != &other) {
    if (topo_) hwloc_topology_destroy(topo_);
    topo_ = other.topo_;
    live_ = other.live_;
    source_ = std::move(other.source_);
    other.topo_ = nullptr;
  }
  return *this;
}

Topology::~Topology() {
  if (topo_) hwloc_topology_destroy(topo_);
}

Topology Topology::load_live() {
  hwloc_topology_t topo = init_with_io();
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    throw std::runtime_error("hwloc could not read this machine's topology");
  }
  return Topology(topo, true, "live");
}

Topology Topology::load_file(const std::string& path) {
  precheck_xml(path);
  hwloc_topology_t topo = init_with_io();
  if (hwloc_topology_set_xml(topo, path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    hwloc_topology_destroy(topo);
    throw InputError(path + ": hwloc cannot use this XML file (" + why + "); check that it is complete hwloc XML");
  }
  if (hwloc_topology_load(topo) != 0) {
    std::string why = std::strerror(errno);
    hwloc_topology_destroy(topo);
    throw InputError(path + ": hwloc " + hwloc_runtime_version() + " could not load this XML (" + why +
                     "); it is malformed or truncated: export it again with `placebench topo --export`");
  }
  return Topology(topo, false, path);
}

void Topology::export_xml(const std::string& path) const {
  if (hwloc_topology_export_xml(topo_, path.c_str(), 0) != 0)
    throw InputError(path + ": cannot write the topology XML (" + std::strerror(errno) +
                     "); name a file in an existing, writable directory");
}

}  // namespace placebench::harness
