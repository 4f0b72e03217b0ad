// The check of a topology XML file before hwloc's loader reads it. hwloc 2.9's loader trusts the file:
// an object without complete_cpuset crashes it (SEGV, lstopo too), numbers are read with strtoul (a
// negative size wraps, junk reads as 0) and a set that is not a bitmap reads as empty. This check
// refuses all of that with the file, the line and the attribute, so that bad input is exit 2.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace placebench::harness {

// Largest topology file read (bytes); real machines' XML is a few MiB at most.
inline constexpr std::size_t kMaxTopologyXmlBytes = 64u << 20;

// Throws InputError "NAME:LINE: what (attribute); how to fix" for a text that is not well-formed XML,
// not an hwloc topology (root <topology>, version 1.x or 2.x), or breaks what hwloc 2 requires of it:
// each object's type and sets (cpuset, complete_cpuset, nodeset, complete_nodeset, the root's
// allowed_cpuset and allowed_nodeset), parent and child kinds, sets inside their parent's, numbers
// that fit their type, one NUMA node per os_index. Returns normally when the text is fit to load.
// Pure (no file, no hwloc topology): the fuzz target calls it on arbitrary bytes.
void check_topology_xml(std::string_view text, const std::string& name);

}  // namespace placebench::harness
