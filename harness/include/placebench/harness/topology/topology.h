// An hwloc topology with its I/O objects (GPUs, NICs), from the live machine or a saved XML file.
// A topology loaded from a file describes another machine: it must never be used to bind anything,
// so binding code asks is_live() first.
#pragma once
#include <hwloc.h>

#include <string>

namespace placebench::harness {

class Topology {
 public:
  static Topology load_live();
  // Throws InputError (one line: the file, the line and the reason) for a missing file, a file that is
  // not hwloc XML or breaks what hwloc 2 requires (check_topology_xml, topology_xml_check.h), an XML
  // version this hwloc cannot read, and a file hwloc's loader crashes on: it is loaded in a forked
  // child first (run_in_child_first, xml_load_probe.h). Safe on arbitrary bytes; the fuzz target.
  static Topology load_file(const std::string& path);

  Topology(Topology&& other) noexcept;
  Topology& operator=(Topology&& other) noexcept;
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  ~Topology();

  hwloc_topology_t get() const { return topo_; }
  bool is_live() const { return live_; }
  // "live" or the file's path.
  const std::string& source() const { return source_; }

  // Saves the topology (with I/O objects) as hwloc XML v2. Throws std::runtime_error on failure.
  void export_xml(const std::string& path) const;

 private:
  Topology(hwloc_topology_t topo, bool live, std::string source);
  hwloc_topology_t topo_ = nullptr;
  bool live_ = false;
  std::string source_;
};

// The hwloc library version at run time ("2.9.0").
std::string hwloc_runtime_version();

}  // namespace placebench::harness
