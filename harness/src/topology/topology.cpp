// Loading and saving hwloc topologies (see topology.h).
#include "placebench/harness/topology/topology.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <stdexcept>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/topology/topology_xml_check.h"
#include "placebench/harness/topology/xml_load_probe.h"

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

// The whole file, for the check and for hwloc (one read: what is checked is what hwloc loads).
std::string read_topology_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a directory, not a topology file; give an hwloc XML file saved with "
                     "`placebench topo --export FILE.xml` or `lstopo FILE.xml`");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path + ": cannot open topology file (" + std::strerror(errno) +
                     "); give an hwloc XML file saved with `placebench topo --export FILE.xml` or `lstopo FILE.xml`");
  }
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxTopologyXmlBytes)
      throw InputError(path + ": larger than " + std::to_string(kMaxTopologyXmlBytes >> 20) +
                       " MiB, far more than any machine's topology XML; give the file saved by `placebench topo --export`");
  }
  if (in.bad()) throw InputError(path + ": cannot read topology file (" + std::strerror(errno) + "); check the file");
  return text;
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
  std::string text = read_topology_file(path);
  check_topology_xml(text, path);
  hwloc_topology_t topo = init_with_io();
  if (hwloc_topology_set_xmlbuffer(topo, text.c_str(), static_cast<int>(text.size() + 1)) != 0) {
    std::string why = std::strerror(errno);
    hwloc_topology_destroy(topo);
    throw InputError(path + ": hwloc cannot use this XML file (" + why + "); check that it is complete hwloc XML");
  }
  // A child loads it first: a loader crash there is an InputError, not a crash of this process.
  ProbeResult probe = ProbeResult::kNotRun;
  try {
    probe = run_in_child_first([topo] { return hwloc_topology_load(topo) == 0; }, path, kXmlLoadDeadline);
  } catch (...) {
    hwloc_topology_destroy(topo);
    throw;
  }
  if (probe == ProbeResult::kLoadFailed || hwloc_topology_load(topo) != 0) {
    std::string why = probe == ProbeResult::kLoadFailed ? "refused by hwloc" : std::strerror(errno);
    hwloc_topology_destroy(topo);
    throw InputError(path + ": hwloc " + hwloc_runtime_version() + " could not load this XML (" + why +
                     "); it is malformed or truncated: export it again with `placebench topo --export`");
  }
  return Topology(topo, false, path);
}

void Topology::export_xml(const std::string& path) const {
  // Exported to memory, then written by the one atomic writer: a full disk or a kill leaves the old file
  // (or none), never half an XML that a later --topology would refuse.
  char* buffer = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(topo_, &buffer, &length, 0) != 0 || !buffer)
    throw std::runtime_error(std::string("hwloc could not export the topology (") + std::strerror(errno) + ")");
  std::string xml(buffer, length > 0 ? static_cast<std::size_t>(length - 1) : 0);  // length counts the final NUL
  hwloc_free_xmlbuffer(topo_, buffer);
  try {
    write_file_atomically(path, xml, "name a file in an existing, writable directory");
  } catch (const WriteError& e) {
    throw InputError(e.what());
  }
}

}  // namespace placebench::harness
