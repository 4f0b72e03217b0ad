// Inventory on the project's own fixtures and on real machines' topologies (hwloc's, tests/fixtures/topologies).
// Expected GPU counts and NUMA nodes are what `lstopo-no-graphics --input FILE` shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fixtures.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/harness/topology/topology_xml_check.h"
#include "placebench/harness/topology/xml_load_probe.h"

using namespace placebench::harness;
using placebench::testing::own_topology;

namespace {
Inventory load(const std::string& path) { return build_inventory(Topology::load_file(path)); }
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
// The fixture's text with `from` replaced once by `to` (which must be there).
std::string edited(const std::string& fixture, const std::string& from, const std::string& to) {
  std::string text = read_text(own_topology(fixture));
  std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error(fixture + " has no " + from);
  return text.replace(at, from.size(), to);
}
std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}
// The InputError message of check_topology_xml(text), or "" when it passes.
std::string check_error(const std::string& text) {
  try {
    check_topology_xml(text, "t.xml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
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

// ---- issue 15: the check before hwloc's loader, and the forked load ----

TEST(TopologyXmlCheck, EveryFixtureInTheRepositoryPasses) {
  for (const auto& e : std::filesystem::directory_iterator(own_topology(""))) {
    if (e.path().extension() != ".xml") continue;
    EXPECT_EQ(check_error(read_text(e.path().string())), "") << e.path();
  }
}

TEST(TopologyXmlCheck, BadFixturesNameTheLineAndTheAttribute) {
  struct Case {
    std::string file;
    std::string line_and_what;
  };
  std::vector<Case> cases = {
      {"no-complete-cpuset.xml", ":9: <object type=\"Core\"> has no complete_cpuset attribute"},
      {"version-20-digits.xml", ":3: topology version=\"12345678901234567890.0\" is not MAJOR.MINOR"},
      {"duplicate-numa-os-index.xml", ":43: two NUMANode objects have os_index=\"0\" (lines 8 and 43)"},
      {"cpuset-not-bitmap.xml", ":9: <object type=\"Core\"> attribute cpuset=\"zzz\" is not an hwloc bitmap"},
      {"negative-memory.xml", ":8: <object type=\"NUMANode\"> attribute local_memory=\"-5\" is not a size in bytes"},
      {"memory-not-a-number.xml", ":8: <object type=\"NUMANode\"> attribute local_memory=\"24GiB\" is not a size"},
      {"truncated.xml", ":12: the file ends before <object> opened at line 7 is closed"},
      {"cores-out-of-order.xml", ":12: <object type=\"Core\"> complete_cpuset=\"0x00000001\" comes after a sibling with higher CPUs (line 9)"},
  };
  for (const Case& c : cases) {
    std::string path = own_topology("bad/" + c.file);
    try {
      Topology::load_file(path);
      ADD_FAILURE() << c.file << " loaded";
    } catch (const InputError& e) {
      std::string msg = e.what();
      EXPECT_EQ(msg.rfind(path + c.line_and_what, 0), 0u) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(TopologyXmlCheck, RefusesWhatHwloc2CannotLoadOrTrusts) {
  const std::string core = "<object type=\"Core\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\"";
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<object>";
  struct Case {
    std::string text;
    std::string fragment;
  };
  std::vector<Case> cases = {
      {"", "t.xml:1: not an hwloc topology XML"},
      {"<a></a>", "root element <a>, expected <topology>"},
      {edited("1n-cpu.xml", "version=\"2.0\"", "version=\"2\""), ":3: topology version=\"2\" is not MAJOR.MINOR"},
      {edited("1n-cpu.xml", "version=\"2.0\"", "version=\"99999999999999999999999.0\""), "is not MAJOR.MINOR"},
      {edited("1n-cpu.xml", "<object type=\"Core\" os_index=\"0\"", "<object os_index=\"0\""), ":9: <object> has no type attribute"},
      {edited("1n-cpu.xml", "<object type=\"Core\" os_index=\"0\"", "<object os_index=\"0\" type=\"Core\""), "type is not the first attribute"},
      {edited("1n-cpu.xml", "type=\"Core\"", "type=\"Kernel\""), ":9: unknown object type \"Kernel\""},
      {edited("1n-cpu.xml", "os_index=\"0\" cpuset=\"0x00000001\"", "os_index=\"0\" os_index=\"0\" cpuset=\"0x00000001\""), "attribute os_index given twice"},
      {edited("1n-cpu.xml", core, "<object type=\"Core\" os_index=\"18446744073709551616\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\""), "os_index=\"18446744073709551616\" is not a decimal number from 0 to 4294967294"},
      {edited("1n-cpu.xml", "gp_index=\"4\"", "gp_index=\"-4\""), "gp_index=\"-4\" is not a decimal number"},
      {edited("1n-cpu.xml", "cpuset=\"0x00000001\"", "cpuset=\"0x1ffffffff\""), "cpuset=\"0x1ffffffff\" is not an hwloc bitmap"},
      {edited("1n-cpu.xml", " nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\"", " gp_index=\"4\""), ":9: <object type=\"Core\"> has no nodeset attribute"},
      {edited("1n-cpu.xml", " allowed_cpuset=\"0x00000003\"", ""), ":4: <object type=\"Machine\"> has no allowed_cpuset attribute"},
      {edited("1n-cpu.xml", "<object type=\"PU\" os_index=\"0\"", "<object type=\"PU\" os_index=\"1\""), "is not exactly its own CPU (os_index 1)"},
      {edited("1n-cpu.xml", core, "<object type=\"Core\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\""), ":12: <object type=\"Core\"> complete_cpuset=\"0x00000002\" overlaps a sibling's"},
      {edited("1n-cpu.xml", core, "<object type=\"Core\" os_index=\"0\" cpuset=\"0x00000005\" complete_cpuset=\"0x00000005\""), "is not inside the complete sets of its parent <object type=\"Package\"> at line 7"},
      {edited("1n-cpu.xml", "<info name=\"HostName\" value=\"fixture-cpu\"/>", "<object type=\"Misc\" cpuset=\"0x1\"/>"), "I/O and Misc objects have no sets"},
      {edited("1n-cpu.xml", "local_memory=\"25769803776\"/>", "local_memory=\"25769803776\"><object type=\"Misc\"/></object>"), ""},
      {edited("1n-cpu.xml", "<info name=\"HostName\" value=\"fixture-cpu\"/>", "<object type=\"L2Cache\" cpuset=\"0x0\" complete_cpuset=\"0x0\" nodeset=\"0x0\" complete_nodeset=\"0x0\" depth=\"3\"/>"), "which is not a L2Cache"},
      {edited("1n-cpu.xml", "<info name=\"HostName\" value=\"fixture-cpu\"/>", "<object type=\"Bridge\" bridge_type=\"0-1\"><object type=\"NUMANode\" os_index=\"5\" cpuset=\"0x0\" complete_cpuset=\"0x0\" nodeset=\"0x20\" complete_nodeset=\"0x20\"/></object>"), "(a memory object) inside <object type=\"Bridge\">"},
      {edited("1n-cpu.xml", "</object>\n  </object>\n</topology>", "</object>\n  </object>\n  <distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"5\" indexing=\"os\"><indexes length=\"3\">0 0</indexes><u64values length=\"5\">10 20</u64values></distances2>\n</topology>"), "has 2 indexes and 2 values; nbobjs=\"2\" needs 2 and 4"},
      {edited("1n-cpu.xml", "</object>\n  </object>\n</topology>", "</object>\n  </object>\n  <distances2 type=\"NUMANode\" nbobjs=\"99999999\" kind=\"5\" indexing=\"os\"/>\n</topology>"), "nbobjs=\"99999999\" is not a number from 1 to 4096"},
      {edited("1n-cpu.xml", "<info name=\"HostName\" value=\"fixture-cpu\"/>", "<object type=\"Bridge\"/>"), ":6: <object type=\"Bridge\"> has no bridge_type attribute"},
      {edited("1n-cpu.xml", "value=\"fixture-cpu\"", "value=\"a&b\""), "`&` that does not start an entity"},
      {edited("1n-cpu.xml", "value=\"fixture-cpu\"", "value=\"a&#0;\""), "is not an XML character"},
      {edited("1n-cpu.xml", "value=\"fixture-cpu\"", std::string("value=\"a\0b\"", 11)), ":6: control character 0x00"},
      {edited("1n-cpu.xml", "</topology>", "</topology>\n<topology/>"), "content after the end of the root element"},
      {edited("1n-cpu.xml", "  </object>\n</topology>", "</topology>"), "end tag </topology> does not match <object> opened at line 4"},
      {"<topology version=\"2.0\">" + deep, "elements nested deeper than 256 levels"},
  };
  for (const Case& c : cases) {
    std::string msg = check_error(c.text);
    if (c.fragment.empty()) {
      EXPECT_EQ(msg, "") << c.text;
      continue;
    }
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << "expected: " << c.fragment << "\ngot: " << msg;
    EXPECT_EQ(msg.rfind("t.xml:", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(TopologyXmlCheck, MemoryOnlyNumaNodeIsLegal) {
  // A CXL/HBM node: memory, no CPUs, attached to the Machine.
  std::string text = edited("2s2n-4gpu.xml", "nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" allowed_nodeset=\"0x00000003\"",
                            "nodeset=\"0x00000007\" complete_nodeset=\"0x00000007\" allowed_nodeset=\"0x00000007\"");
  std::string package0 = "    <object type=\"Package\" os_index=\"0\"";
  text.insert(text.find(package0), "    <object type=\"NUMANode\" os_index=\"2\" cpuset=\"0x0\" complete_cpuset=\"0x0\" "
                                   "nodeset=\"0x00000004\" complete_nodeset=\"0x00000004\" gp_index=\"900\" "
                                   "local_memory=\"137438953472\"/>\n");
  Inventory inv = load(write_temp("memory-only-node.xml", text));
  ASSERT_EQ(inv.numa_nodes.size(), 3u);
  EXPECT_EQ(inv.numa_nodes[2].os_index, 2u);
  EXPECT_EQ(inv.numa_nodes[2].memory_bytes, 128ull << 30);
  // hwloc gives a memory node the CPUs of the object it hangs from (here the Machine's), and puts it in
  // the nodeset of every object below: the GPUs keep the node attached to their package.
  EXPECT_EQ(inv.numa_nodes[2].cpus, "0-7");
  EXPECT_EQ(gpu_nodes(inv), (std::vector<int>{0, 0, 1, 1}));
  for (const auto& n : inv.notes) EXPECT_EQ(n.find("NUMA node is unknown"), std::string::npos) << n;
}

TEST(TopologyXmlCheck, GpuAboveSeveralNodesHasAnUnknownNode) {
  // The first bridge (GPUs 0 and 1) moved from package 0 up to the Machine, which spans both nodes.
  std::string text = read_text(own_topology("2s2n-4gpu.xml"));
  std::size_t begin = text.find("      <object type=\"Bridge\" gp_index=\"12\"");
  std::size_t end = text.find("    </object>\n    <object type=\"Package\" os_index=\"1\"");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::string bridge = text.substr(begin, end - begin);
  text.erase(begin, end - begin);
  text.insert(text.find("  </object>\n  <distances2"), bridge);
  Inventory inv = load(write_temp("gpu-unknown-node.xml", text));
  ASSERT_EQ(inv.gpus.size(), 4u);
  EXPECT_EQ(gpu_nodes(inv), (std::vector<int>{-1, -1, 1, 1}));
  EXPECT_EQ(inv.gpus[0].local_cpus, "0-7");
  EXPECT_TRUE(std::any_of(inv.notes.begin(), inv.notes.end(),
                          [](const std::string& n) { return n.find("GPU 0: hwloc places it above several NUMA nodes") == 0; }));
}

TEST(XmlLoadProbe, ChildCrashIsAnInputErrorNamingTheSignal) {
  try {
    run_in_child_first([] { std::raise(SIGSEGV); return true; }, "f.xml", std::chrono::seconds(20));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    std::string msg = e.what();
    // SIGSEGV (11), or SIGABRT (6) where AddressSanitizer turns the crash into an abort.
    EXPECT_EQ(msg.rfind("f.xml: hwloc's XML loader crashed on f.xml (signal ", 0), 0u) << msg;
    EXPECT_NE(msg.find("the file is malformed"), std::string::npos) << msg;
  }
}

TEST(XmlLoadProbe, ChildPastTheDeadlineIsKilled) {
  try {
    run_in_child_first([] { std::this_thread::sleep_for(std::chrono::seconds(60)); return true; }, "slow.xml",
                       std::chrono::milliseconds(300));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("slow.xml: hwloc's XML loader did not finish within 300 ms", 0), 0u) << e.what();
  }
}

TEST(XmlLoadProbe, ChildAnswersLoadedOrRefused) {
  EXPECT_EQ(run_in_child_first([] { return true; }, "ok.xml", std::chrono::seconds(20)), ProbeResult::kLoaded);
  EXPECT_EQ(run_in_child_first([] { return false; }, "no.xml", std::chrono::seconds(20)), ProbeResult::kLoadFailed);
  EXPECT_EQ(run_in_child_first([]() -> bool { throw std::runtime_error("x"); }, "x.xml", std::chrono::seconds(20)),
            ProbeResult::kLoadFailed);
}

TEST(Inventory, OsDeviceIndexTooLargeForAnIntIsUnknownNotAnError) {
  // "cuda" + 20 digits: the GPU keeps its place by PCI bus order instead of throwing std::out_of_range.
  std::string text = edited("2s2n-4gpu.xml", "name=\"cuda0\"", "name=\"cuda99999999999999999999\"");
  Inventory inv = load(write_temp("big-cuda-index.xml", text));
  ASSERT_EQ(inv.gpus.size(), 4u);
  EXPECT_EQ(inv.gpus[3].os_devices, std::vector<std::string>{"cuda99999999999999999999"});
  EXPECT_EQ(inv.gpus[3].pci_bus_id, "0000:17:00.0");
}
