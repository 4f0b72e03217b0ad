// The audit's rules on plain data: each placement class, the managers' file formats (real kubelet and
// downward API layouts in tests/fixtures/audit/), the documented disagreements, and topo --expect's diff.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "placebench/harness/audit/audit.h"
#include "placebench/harness/audit/managers.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/topology/inventory_diff.h"

using namespace placebench::harness;

namespace {

const std::string kAudit = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit";
const std::string kUid = "6f1c2d3e-aaaa-bbbb-cccc-0123456789ab";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::map<int, std::vector<int>> kNodes = {{0, {0, 1, 2, 3}}, {1, {4, 5, 6, 7}}};
AuditTarget gpu_on(int node) { return {"GPU 0", 0, "0000:17:00.0", "H200", node, "visible"}; }

TEST(AuditClassify, LocalRemoteSplitSpanning) {
  EXPECT_EQ(classify_placement(gpu_on(0), kNodes, {0, 1}, {{0, 10}}, {}).placement, "local");
  GpuPlacement remote = classify_placement(gpu_on(0), kNodes, {4, 5, 6, 7}, {{1, 10}}, {});
  EXPECT_EQ(remote.placement, "remote");
  EXPECT_EQ(*remote.cpu_share_pct, 0.0);
  EXPECT_EQ(*remote.page_share_pct, 0.0);
  EXPECT_NE(remote.reasons.back().find("neither the CPUs nor the memory"), std::string::npos);
  GpuPlacement split = classify_placement(gpu_on(0), kNodes, {0, 1, 2, 3}, {{1, 10}}, {});
  EXPECT_EQ(split.placement, "split");
  EXPECT_NE(split.reasons.back().find("the CPUs are local, the memory is remote"), std::string::npos);
  EXPECT_EQ(classify_placement(gpu_on(0), kNodes, {4}, {{0, 10}}, {}).placement, "split");
  GpuPlacement spanning = classify_placement(gpu_on(0), kNodes, {0, 1, 2, 3, 4, 5, 6, 7}, {{0, 5}, {1, 15}}, {});
  EXPECT_EQ(spanning.placement, "spanning");
  EXPECT_DOUBLE_EQ(*spanning.cpu_share_pct, 50.0);
  EXPECT_DOUBLE_EQ(*spanning.page_share_pct, 25.0);
  EXPECT_EQ(spanning.cpu_nodes, (std::vector<int>{0, 1}));
}

TEST(AuditClassify, NoPagePresentUsesThePolicyNodesAndUnknownNodeIsNotLocal) {
  GpuPlacement p = classify_placement(gpu_on(1), kNodes, {4}, {{-1, 10}}, {0});
  EXPECT_EQ(p.placement, "split");
  EXPECT_FALSE(p.page_share_pct);
  EXPECT_EQ(classify_placement(gpu_on(-1), kNodes, {4}, {{1, 1}}, {}).placement, "unknown");
}

TEST(AuditManagers, ParsesTheKubeletStateFiles) {
  CpuManagerState cpu = parse_cpu_manager_state(slurp(kAudit + "/kubelet/cpu_manager_state"));
  EXPECT_EQ(cpu.policy, "static");
  EXPECT_EQ(cpu.default_cpus, (std::vector<int>{0, 3, 4, 5, 6, 7}));
  EXPECT_EQ(cpu.entries.at(kUid).at("trainer"), (std::vector<int>{1, 2}));
  MemoryManagerState mem = parse_memory_manager_state(slurp(kAudit + "/kubelet/memory_manager_state"));
  EXPECT_EQ(mem.policy, "Static");
  EXPECT_EQ(mem.entries.at(kUid).at("trainer"), std::vector<int>{0});
  try {
    parse_cpu_manager_state(slurp(kAudit + "/kubelet/cpu_manager_state.truncated"));
    FAIL() << "a truncated state file parsed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 1, column"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_cpu_manager_state(R"({"policyName":"static","entries":{"p":{"c":"1-x"}}})"), std::invalid_argument);
}

TEST(AuditManagers, ParsesDownwardApiAndHamiAnnotations) {
  auto a = parse_downward_api_file(slurp(kAudit + "/podinfo/annotations"));
  EXPECT_EQ(a.at("scheduling.k8s.io/group-name"), "train-job-pg");
  HamiAnnotations h = read_hami_annotations(a);
  ASSERT_EQ(h.allocated.size(), 1u);
  EXPECT_EQ(h.allocated[0], std::vector<std::string>{"GPU-aaaaaaaa-1111-2222-3333-444444444444"});
  EXPECT_EQ(h.numa_bind, std::optional<bool>(true));
  EXPECT_EQ(h.numa_alignment, "strict");
  EXPECT_EQ(parse_downward_api_file("k=\"a\\\"b\\n\"\n").at("k"), "a\"b\n");
  try {
    parse_downward_api_file(slurp(kAudit + "/podinfo/annotations.malformed"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  // Two containers, two devices in the first.
  h = read_hami_annotations({{"hami.io/vgpu-devices-allocated", "GPU-a,NVIDIA,100,10:GPU-b,NVIDIA,100,10:;GPU-c,NVIDIA,1,1:;"}});
  EXPECT_EQ(h.allocated, (std::vector<std::vector<std::string>>{{"GPU-a", "GPU-b"}, {"GPU-c"}}));
}

AuditObservation observed(std::vector<int> cpus, std::vector<int> mems, std::string nvidia_visible) {
  AuditObservation o;
  o.process.allowed_cpus = cpus;
  o.process.allowed_mems = mems;
  o.run_cpus = cpus;
  o.visibility.nvidia_visible_devices = nvidia_visible;
  return o;
}

ManagersOptions fixture_options() {
  ManagersOptions m;
  m.cpu_manager_state = kAudit + "/kubelet/cpu_manager_state";
  m.memory_manager_state = kAudit + "/kubelet/memory_manager_state";
  m.kubelet_config = kAudit + "/kubelet/config.yaml";
  m.annotations = kAudit + "/podinfo/annotations";
  m.labels = kAudit + "/podinfo/labels";
  m.pod_uid = kUid;
  m.container = "trainer";
  return m;
}

TEST(AuditManagers, AgreementGivesNoFinding) {
  AuditObservation o = observed({1, 2}, {0}, "GPU-aaaaaaaa-1111-2222-3333-444444444444");
  std::vector<GpuPlacement> p = {classify_placement(gpu_on(0), kNodes, {1, 2}, {{0, 4}}, {})};
  ManagersReport r = read_managers(fixture_options(), o);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.pod_group, "train-job-pg");
  find_disagreements(r, o, p);
  EXPECT_TRUE(r.disagreements.empty()) << r.disagreements[0];
}

TEST(AuditManagers, EachDisagreementIsNamed) {
  // Another GPU than HAMi's, CPUs and a node the managers did not assign, CPUs off the GPU's node.
  AuditObservation o = observed({1, 2, 4}, {0, 1}, "GPU-bbbbbbbb-1111-2222-3333-444444444444");
  std::vector<GpuPlacement> p = {classify_placement(gpu_on(0), kNodes, {1, 2, 4}, {{0, 4}}, {})};
  ManagersReport r = read_managers(fixture_options(), o);
  find_disagreements(r, o, p);
  std::string all;
  for (const auto& d : r.disagreements) all += d + "\n";
  EXPECT_NE(all.find("HAMi annotated GPU GPU-aaaaaaaa-1111-2222-3333-444444444444 (hami.io/vgpu-devices-allocated), the container "
                     "sees GPU GPU-bbbbbbbb-1111-2222-3333-444444444444 (NVIDIA_VISIBLE_DEVICES)"), std::string::npos) << all;
  EXPECT_NE(all.find("CPUs 4 are allowed but the CPU manager did not assign them"), std::string::npos) << all;
  EXPECT_NE(all.find("memory nodes 1 are allowed but the memory manager assigned 0"), std::string::npos) << all;
  EXPECT_NE(all.find("hami.io/numa-alignment=strict asks for CPUs on the GPU's node"), std::string::npos) << all;
  EXPECT_NE(all.find("topologyManagerPolicy is single-numa-node (scope pod)"), std::string::npos) << all;
}

TEST(AuditManagers, MalformedFileIsAWarningAndTheRestIsRead) {
  ManagersOptions m = fixture_options();
  m.cpu_manager_state = kAudit + "/kubelet/cpu_manager_state.truncated";
  m.annotations = kAudit + "/podinfo/annotations.malformed";
  ManagersReport r = read_managers(m, observed({1}, {0}, ""));
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("cpu_manager_state.truncated: line 1, column"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("annotations.malformed: line 2"), std::string::npos) << r.warnings[1];
  EXPECT_EQ(r.cpu.file.status, "malformed");
  EXPECT_EQ(r.memory.file.status, "read");
  EXPECT_EQ(r.pod.labels.at("app"), "trainer");
}

TEST(AuditManagers, ANonUtf8OrNonJsonFileIsAWarningNotAnExit) {
  ManagersOptions m = fixture_options();
  m.annotations = testing::TempDir() + "/audit_latin1_annotations";
  std::ofstream(m.annotations) << "app=\"tr\xE4iner\"\n";
  m.cpu_manager_state = testing::TempDir() + "/audit_array_cpu_state";
  std::ofstream(m.cpu_manager_state) << R"({"policyName":"static","entries":{"p":["not","an","object"]}})";
  ManagersReport r;
  ASSERT_NO_THROW(r = read_managers(m, observed({1}, {0}, "")));
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.pod.annotations_file.status, "malformed");
  EXPECT_EQ(r.cpu.file.status, "malformed");
  EXPECT_NE(r.warnings[0].find("entries.p: expected an object"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("audit_latin1_annotations: line 1: bytes that are not UTF-8"), std::string::npos) << r.warnings[1];
  EXPECT_EQ(r.memory.file.status, "read");
}

TEST(AuditManagers, AbsentDefaultIsAbsentButANamedMissingFileIsBadInput) {
  ManagersOptions m;
  m.cpu_manager_state = kAudit + "/no-such-file";
  m.memory_manager_state = m.kubelet_config = m.annotations = m.labels = m.cpu_manager_state;
  ManagersReport r = read_managers(m, observed({1}, {0}, ""));
  EXPECT_EQ(r.cpu.file.status, "absent");
  EXPECT_TRUE(r.warnings.empty());
  m.given = {"--cpu-manager-state"};
  EXPECT_THROW(read_managers(m, observed({1}, {0}, "")), InputError);
}

Inventory two_nodes() {
  Inventory inv;
  inv.numa_nodes = {{0, "0-3", 0}, {1, "4-7", 0}};
  inv.distances = std::vector<std::vector<std::uint64_t>>{{10, 21}, {21, 10}};
  inv.cores = inv.pus = 8;
  GpuInfo g;
  g.pci_bus_id = "0000:17:00.0";
  g.numa_node = 0;
  g.local_cpus = "0-3";
  inv.gpus.push_back(g);
  g.index = 1;
  g.pci_bus_id = "0000:b1:00.0";
  g.numa_node = 1;
  g.local_cpus = "4-7";
  inv.gpus.push_back(g);
  inv.nics.push_back({"ib0", "network", "0000:e3:00.0", 1});
  return inv;
}

TEST(InventoryDiff, NamesEveryDifference) {
  EXPECT_TRUE(diff_inventories(two_nodes(), two_nodes()).empty());
  Inventory moved = two_nodes();
  std::swap(moved.gpus[0].numa_node, moved.gpus[1].numa_node);
  moved.gpus.pop_back();
  moved.nics[0].numa_node = 0;
  (*moved.distances)[0][1] = 32;
  std::vector<std::string> d = diff_inventories(two_nodes(), moved);
  std::string all;
  for (const auto& s : d) all += s + "\n";
  EXPECT_NE(all.find("GPU 0000:17:00.0: NUMA node expected 0, found 1"), std::string::npos) << all;
  EXPECT_NE(all.find("GPU 0000:b1:00.0 (expected on NUMA node 1): missing"), std::string::npos) << all;
  EXPECT_NE(all.find("NIC ib0: NUMA node expected 1, found 0"), std::string::npos) << all;
  EXPECT_NE(all.find("distance node 0 -> node 1: expected 21, found 32"), std::string::npos) << all;
  Inventory file = two_nodes();
  file.gpus[0].numa_node = -1;
  EXPECT_EQ(devices_without_numa_node(file, false).size(), 1u);
}

}  // namespace

namespace {

TEST(AuditManagers, HamiIsComparedWithTheGpuAnIndexFormResolvesTo) {
  // NVIDIA_VISIBLE_DEVICES=1 (an index, as some device plugins write it) resolved to GPU-bbbb...; HAMi annotated GPU-aaaa...
  AuditObservation o = observed({1, 2}, {0}, "1");
  WorkloadGpu w;
  w.named = "1";
  w.uuid = "GPU-bbbbbbbb-1111-2222-3333-444444444444";
  o.workload_gpus.gpus.push_back(w);
  std::vector<GpuPlacement> p = {classify_placement(gpu_on(0), kNodes, {1, 2}, {{0, 4}}, {})};
  ManagersReport r = read_managers(fixture_options(), o);
  find_disagreements(r, o, p);
  std::string all;
  for (const auto& d : r.disagreements) all += d + "\n";
  EXPECT_NE(all.find("HAMi annotated GPU GPU-aaaaaaaa-1111-2222-3333-444444444444 (hami.io/vgpu-devices-allocated), the container "
                     "sees GPU GPU-bbbbbbbb-1111-2222-3333-444444444444 (NVIDIA_VISIBLE_DEVICES)"), std::string::npos) << all;
}

}  // namespace
