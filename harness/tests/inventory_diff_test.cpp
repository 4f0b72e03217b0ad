// topo --expect's reader of a topo --json inventory on what fuzzing found (tests/fuzz/regressions/topo_expect):
// every bad value is an InputError naming the file and the field, and the diff reads no row of a distance
// matrix beyond the NUMA nodes.
#include <gtest/gtest.h>

#include <fstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/harness/topology/inventory_diff.h"
#include "placebench/harness/topology/inventory_format.h"
#include "placebench/harness/topology/inventory_read.h"
#include "placebench/harness/topology/topology.h"

using namespace placebench::harness;

namespace {

const std::string kNodes = R"("numa_nodes":[{"os_index":0,"cpus":"0-3"},{"os_index":1,"cpus":"4-7"}],"cores":8,"pus":8,"nics":[])";

// The InputError load_expected_inventory throws on `text`, "" when it accepts it.
std::string refusal(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  try {
    load_expected_inventory(path);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size());
  }
  return "";
}

TEST(InventoryDiffRead, WhatTopoJsonWritesIsReadBack) {
  Inventory inv = build_inventory(Topology::load_file(std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/topologies/2s2n-4gpu.xml"));
  std::string path = ::testing::TempDir() + "/inventory_diff_roundtrip.json";
  std::ofstream(path) << inventory_to_json(inv).dump(2);
  Inventory back = load_expected_inventory(path);
  EXPECT_TRUE(diff_inventories(back, inv).empty());
  EXPECT_EQ(back.gpus.size(), inv.gpus.size());
  ASSERT_TRUE(back.distances.has_value());
  EXPECT_EQ(*back.distances, *inv.distances);
}

TEST(InventoryDiffRead, ADistanceMatrixNotOneRowPerNodeIsRefused) {
  // Three rows for two nodes: diff_inventories read numa_nodes[2] (ASan: heap-buffer-overflow).
  EXPECT_EQ(refusal("inventory_diff_rows.json", R"({"schema_version":1,"distances":[[10,21],[21,10],[30,30]],)" + kNodes + "}"),
            ": distances: not a 2x2 matrix (one row and column per NUMA node); give a saved hwloc XML (topo --export) or the "
            "output of topo --json");
  EXPECT_NE(refusal("inventory_diff_cols.json", R"({"schema_version":1,"distances":[[10],[21,10]],)" + kNodes + "}").find("not a 2x2"),
            std::string::npos);
  EXPECT_NE(refusal("inventory_diff_cell.json", R"({"schema_version":1,"distances":[[10,1.5],[21,10]],)" + kNodes + "}")
                .find(": distances[0][1]: expected an integer"),
            std::string::npos);
}

TEST(InventoryDiffRead, ANumberOutsideTheFieldsTypeIsRefusedNotCast) {
  // get<int> of 1e20 is undefined behaviour (UBSan: float-cast-overflow); of 4294967296 it wrapped.
  EXPECT_EQ(refusal("inventory_diff_float.json", R"({"schema_version":1,"gpus":[{"index":0,"numa_node":1e20}],)" + kNodes + "}")
                .rfind(": gpus[0].numa_node: expected an integer from 0 to 1023, found 1", 0),
            0u);
  EXPECT_NE(refusal("inventory_diff_wrap.json", R"({"schema_version":1,"nics":[{"name":"ib0","numa_node":4294967296}],)" +
                                                    kNodes.substr(0, kNodes.size() - 10) + "}")
                .find(": nics[0].numa_node: expected an integer from 0 to 1023, found 4294967296"),
            std::string::npos);
  EXPECT_NE(refusal("inventory_diff_version.json", R"({"schema_version":1e300,)" + kNodes + "}").find(": schema_version: expected an integer"),
            std::string::npos);
  EXPECT_NE(refusal("inventory_diff_bytes.json",
                    R"({"schema_version":1,"numa_nodes":[{"os_index":0,"cpus":"0","memory_bytes":-5}],"cores":1,"pus":1,"nics":[]})")
                .find(": numa_nodes[0].memory_bytes: expected an integer from 0"),
            std::string::npos);
  EXPECT_NE(refusal("inventory_diff_nics.json", R"({"schema_version":1,"numa_nodes":[],"cores":1,"pus":1,"nics":{}})").find(": nics: missing or not a list"),
            std::string::npos);
}

TEST(InventoryDiffRead, AFieldOfTheWrongTypeNamesItsEntry) {
  EXPECT_NE(refusal("inventory_diff_type.json", R"({"schema_version":1,"gpus":[{"index":0,"numa_node":0},{"index":1,"name":5,"numa_node":0}],)" +
                                                    kNodes + "}")
                .find(": gpus[1]: not a topo --json inventory ("),
            std::string::npos);
}

TEST(InventoryDiffRead, TheDiffComparesOnlyTheNodesRows) {
  Inventory a;
  a.numa_nodes = {{0, "0-3", 0}, {1, "4-7", 0}};
  a.distances = std::vector<std::vector<std::uint64_t>>{{10, 21, 5}, {21, 10, 5}, {5, 5, 10}};
  Inventory b = a;
  (*b.distances)[2][2] = 99;
  EXPECT_TRUE(diff_inventories(a, b).empty());  // row 2 has no node to name: not read
  (*b.distances)[1][0] = 32;
  ASSERT_EQ(diff_inventories(a, b).size(), 1u);
  EXPECT_EQ(diff_inventories(a, b)[0], "distance node 1 -> node 0: expected 21, found 32");
}

}  // namespace

namespace {

Inventory one_gpu(const std::string& bus_id) {
  Inventory inv;
  inv.numa_nodes = {{0, "0-3", 0}};
  inv.gpus = {GpuInfo{}};
  inv.gpus[0].index = 0;
  inv.gpus[0].pci_bus_id = bus_id;
  inv.gpus[0].numa_node = 0;
  inv.gpus[0].local_cpus = "0-3";
  return inv;
}

}  // namespace

TEST(InventoryDiffRead, BusIdsAsNvidiaSmiPrintsThemAreTheSameDevice) {
  // nvidia-smi prints "00000000:17:00.0" in upper case; hwloc "0000:17:00.0". Before: two differences.
  EXPECT_TRUE(diff_inventories(one_gpu("00000000:1A:00.0"), one_gpu("0000:1a:00.0")).empty());
  EXPECT_EQ(normalized_pci_bus_id("00000000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(normalized_pci_bus_id("0001:1a:00.0"), "0001:1a:00.0");
  EXPECT_EQ(normalized_pci_bus_id("10000:1a:00.0"), "10000:1a:00.0");  // a domain beyond 4 digits is kept
  std::string text = R"({"schema_version":1,"gpus":[{"index":0,"pci_bus_id":"00000000:1A:00.0","numa_node":0,"local_cpus":"0-3"}],)" + kNodes + "}";
  std::string path = ::testing::TempDir() + "/inventory_diff_upper.json";
  std::ofstream(path) << text;
  EXPECT_EQ(load_expected_inventory(path).gpus.at(0).pci_bus_id, "0000:1a:00.0");
}

TEST(InventoryDiffRead, ACpulistThatDoesNotParseIsRefused) {
  // Before: "zz" was compared as text and reported as a difference, not refused.
  EXPECT_NE(refusal("inventory_diff_cpus.json", R"({"schema_version":1,"numa_nodes":[{"os_index":0,"cpus":"zz"}],"cores":1,"pus":1,"nics":[]})")
                .find(": numa_nodes[0].cpus: not a cpulist ("),
            std::string::npos);
  EXPECT_NE(refusal("inventory_diff_local.json", R"({"schema_version":1,"gpus":[{"index":0,"numa_node":0,"local_cpus":"0-zz"}],)" + kNodes + "}")
                .find(": gpus[0].local_cpus: not a cpulist ("),
            std::string::npos);
  EXPECT_NE(refusal("inventory_diff_node.json", R"({"schema_version":1,"gpus":[{"index":0,"numa_node":-5}],)" + kNodes + "}")
                .find(": gpus[0].numa_node: expected an integer from 0 to 1023, found -5"),
            std::string::npos);
}
