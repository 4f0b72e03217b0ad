// `topo --expect FILE`: the node's inventory against the one it should have (a saved hwloc XML or a
// `topo --json` file): GPU -> NUMA node and local CPUs, NIC -> NUMA node, node and CPU counts and
// distances. Differences are sentences that name the device and both values.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "placebench/harness/topology/inventory.h"

namespace placebench::harness {

// Reads the expected inventory: hwloc XML (the file starts with '<') or placebench topo JSON (schema
// version checked). Throws InputError naming the file, the place and the fix.
Inventory load_expected_inventory(const std::string& path);

// Every difference, in words ("GPU 0000:17:00.0: NUMA node expected 0, found 1"); empty when they agree.
// GPUs are matched by PCI bus id (by index where a side has none), hidden GPUs included; NICs by name.
std::vector<std::string> diff_inventories(const Inventory& expected, const Inventory& actual);

// PCI devices whose NUMA node is unknown: on the live machine every network, display or accelerator
// device whose <sys_root>/bus/pci/devices/*/numa_node reads -1 (on a machine with more than one node); for a file, its GPUs and NICs without a node.
std::vector<std::string> devices_without_numa_node(const Inventory& inv, bool live, const std::string& sys_root = "/sys");

// What `topo --expect` prints: the differences and the devices without a node, as lines or as one JSON
// object (schema_version, evidence stamp). Returns 0 when they agree, 1 on any difference; a device
// without a node is flagged but is not a difference.
int report_expected_inventory(const Inventory& actual, bool live, const std::string& expect_path, bool json,
                              std::ostream& out);

}  // namespace placebench::harness
