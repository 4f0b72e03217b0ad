// Reading an inventory back from `placebench topo --json` (inventory_to_json's format), as `topo --expect`
// and `fleet` (run.json's topology) take it: every count, index and NUMA node checked, every cpulist
// parsed, PCI bus ids in hwloc's spelling. The one reader of that format, beside its writer
// (inventory_json.cpp, each key spelled once); its users work on the Inventory, never on the JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/topology/inventory.h"

namespace placebench::harness {

// Linux numbers NUMA nodes below MAX_NUMNODES (1 << CONFIG_NODES_SHIFT, at most 1024).
inline constexpr long long kMaxNumaNodeId = 1023;

// A PCI bus id as hwloc and sysfs spell it, lower case with a 4-digit domain ("0000:17:00.0"):
// nvidia-smi's "00000000:17:00.0" and upper case name the same device.
std::string normalized_pci_bus_id(std::string id);

// The inventory in `j`; throws InputError "<path>: <field>: <problem>; <fix>" for anything
// inventory_to_json would not write (a count that is not a whole number, a NUMA node outside
// [0, kMaxNumaNodeId] or null, a cpulist that does not parse, a schema version it is not).
Inventory inventory_from_json(const nlohmann::json& j, const std::string& path, const std::string& fix);

}  // namespace placebench::harness
