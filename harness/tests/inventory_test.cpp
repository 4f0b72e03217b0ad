// Inventory on the project's own fixtures and on real machines' topologies (hwloc's, tests/fixtures/topologies).
// Expected GPU counts and NUMA nodes are what `lstopo-no-graphics --input FILE` shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "fixtures.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/topology/inventory.h"

using namespace placebench::harness;
using placebench::testing::own_topology;

namespace {
Inventory load(const std::string& path) { return build_inventory(Topology::load_file(path)); }
std::vector<int> gpu_nodes(const Inventory& inv) {
  std::vector<int> v;
  for (const auto& g : inv.gpus) v.push_back(g.numa_node);
  return v;
}
}  // namespace

TEST(Inventory, OwnTwoSocketFourGpuFixture) {
  Inventory inv = load(own_topology("2s2n-4gpu.xml"));
  EXPECT_FALSE(Topology::load_file(own_topology("2s2n-4gpu.xml")).is_live());
  EXPECT_EQ(inv.host, "fixture-2s2n");
  ASSERT_EQ(inv.packages.size(), 2u);
  ASSERT_EQ(inv.numa_nodes.size(), 2u);
  EXPECT_EQ(inv.numa_nodes[0].cpus, "0-3");
  EXPECT_EQ(inv.numa_nodes[1].cpus, "4-7");
  EXPECT_EQ(inv.numa_nodes[1].memory_bytes, 64ull << 30);
  EXPECT_EQ(inv.cores, 8u);
  EXPECT_EQ(inv.pus, 8u);
  ASSERT_TRUE(inv.distances.has_value());
  EXPECT_EQ((*inv.distances)[0][1], 21u);
  ASSERT_EQ(inv.gpus.size(), 4u);
  EXPECT_EQ(gpu_nodes(inv), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(inv.gpus[2].pci_bus_id, "0000:b1:00.0");
  EXPECT_EQ(inv.gpus[2].local_cpus, "4-7");
  EXPECT_EQ(inv.gpus[0].name, "NVIDIA H200");
  ASSERT_EQ(inv.nics.size(), 2u);  // ib0 and mlx5_0 on the same HCA
  for (const auto& n : inv.nics) EXPECT_EQ(n.numa_node, 1);
  EXPECT_EQ(inv.allowed_cpus, "0-7");
  EXPECT_EQ(inv.allowed_mems, "0-1");
}

TEST(Inventory, OwnFourNodeAndCpuOnlyFixtures) {
  Inventory four = load(own_topology("4n-2gpu.xml"));
  EXPECT_EQ(four.numa_nodes.size(), 4u);
  EXPECT_EQ(gpu_nodes(four), (std::vector<int>{0, 2}));
  EXPECT_EQ((*four.distances)[0][3], 32u);
  Inventory cpu = load(own_topology("1n-cpu.xml"));
  EXPECT_TRUE(cpu.gpus.empty());
  EXPECT_EQ(cpu.numa_nodes.size(), 1u);
  EXPECT_FALSE(cpu.distances.has_value());
}

TEST(Inventory, Dgx2HasSixteenGpusEightPerNode) {
  std::string path = own_topology("nvidiaDGX2.xml");
  Inventory inv = load(path);
  ASSERT_EQ(inv.gpus.size(), 16u);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(inv.gpus[i].numa_node, i < 8 ? 0 : 1) << "GPU " << i;
    EXPECT_EQ(inv.gpus[i].os_devices, std::vector<std::string>{"nvml" + std::to_string(i)});
  }
  EXPECT_EQ(inv.gpus[3].name, "Tesla V100-SXM3-32GB-H");
}

TEST(Inventory, Power8FourGpusDedupedAcrossCudaOpenclNvml) {
  std::string path = own_topology("power8gpudistances.xml");
  Inventory inv = load(path);
  ASSERT_EQ(inv.gpus.size(), 4u);
  EXPECT_EQ(gpu_nodes(inv), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(inv.gpus[1].os_devices.size(), 3u);
}

TEST(Inventory, TwoSocketNodeWithOneCudaGpuOnNode1) {
  std::string path = own_topology("32em64t-2n8c2t-pci-normalio.xml");
  Inventory inv = load(path);
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].numa_node, 1);
  EXPECT_EQ(inv.gpus[0].pci_bus_id, "0000:84:00.0");
  EXPECT_EQ(inv.gpus[0].name, "Tesla K40m");
  EXPECT_EQ(inv.pus, 32u);
}

TEST(Inventory, NodesWithoutNvidiaGpus) {
  std::string p24 = own_topology("24em64t-2n6c2t-pci.xml");
  Inventory inv = load(p24);
  EXPECT_TRUE(inv.gpus.empty());  // three Tesla M2070 PCI devices that no driver claims: notes only
  EXPECT_EQ(std::count_if(inv.notes.begin(), inv.notes.end(),
                          [](const std::string& n) { return n.find("NVIDIA PCI device") != std::string::npos; }),
            3);
  Inventory counted = build_inventory(Topology::load_file(p24), PciGpuFallback::kOn);
  ASSERT_EQ(counted.gpus.size(), 3u);
  EXPECT_EQ(gpu_nodes(counted), (std::vector<int>{0, 1, 1}));
  ASSERT_FALSE(inv.nics.empty());
  for (const auto& n : inv.nics) EXPECT_EQ(n.numa_node, 0) << n.name;
  std::string p96 = own_topology("96em64t-4n4d3ca2co-pci.xml");
  EXPECT_TRUE(load(p96).gpus.empty());
}

TEST(Inventory, NumaNodesSortedByOsIndexWithMatchingDistances) {
  std::string path = own_topology("16amd64-4distances.xml");
  Inventory inv = load(path);
  ASSERT_EQ(inv.numa_nodes.size(), 8u);
  for (size_t i = 0; i < inv.numa_nodes.size(); ++i) EXPECT_EQ(inv.numa_nodes[i].os_index, i);
  ASSERT_TRUE(inv.distances.has_value());
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*inv.distances)[i][i], 10u);
}

TEST(Inventory, BadFilesAreInputErrorsNamingTheFile) {
  std::string dir = ::testing::TempDir();
  auto expect_error = [](const std::string& path, const std::string& fragment) {
    try {
      Topology::load_file(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const InputError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  };
  expect_error(dir + "/absent.xml", "cannot open");
  std::ofstream(dir + "/text.xml") << "hello\n";
  expect_error(dir + "/text.xml", "not an hwloc topology XML");
  std::ofstream(dir + "/v3.xml") << "<?xml version=\"1.0\"?>\n<topology version=\"3.0\">\n</topology>\n";
  expect_error(dir + "/v3.xml", "version 3.0");
  std::ofstream(dir + "/broken.xml") << "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n<object type=\"Machine\"";
  expect_error(dir + "/broken.xml", "broken.xml");
}
