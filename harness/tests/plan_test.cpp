// Arm resolution on saved topologies: the project's fixtures and real machines (hwloc's, tests/fixtures/topologies).
#include <gtest/gtest.h>

#include "fixtures.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/placement/plan.h"

using namespace placebench::harness;
using placebench::testing::own_topology;

namespace {

Inventory load(const std::string& path) { return build_inventory(Topology::load_file(path)); }

PlanRequest request(std::vector<Arm> arms, std::optional<int> gpu = std::nullopt) {
  PlanRequest r;
  r.arms = std::move(arms);
  r.device.gpu = gpu;
  return r;
}

std::string error_of(const Inventory& inv, const PlanRequest& req) {
  try {
    plan_arms(inv, req);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Plan, EveryArmOnTheTwoSocketFixture) {
  Inventory inv = load(own_topology("2s2n-4gpu.xml"));
  auto plans = plan_arms(inv, request(all_arms(), 2));  // GPU 2 sits on node 1
  ASSERT_EQ(plans.size(), 5u);
  for (const auto& p : plans) EXPECT_EQ(p.device_numa, 1);
  EXPECT_EQ(plans[0].workers[0].cpus, std::vector<int>{4});
  EXPECT_EQ(plans[0].workers[0].mem_nodes, std::vector<int>{1});
  EXPECT_EQ(plans[1].workers[0].cpus, std::vector<int>{0});
  EXPECT_EQ(plans[1].workers[0].mem_nodes, std::vector<int>{0});
  EXPECT_TRUE(plans[2].workers[0].cpus.empty());
  EXPECT_TRUE(plans[2].workers[0].mem_nodes.empty());
  EXPECT_EQ(plans[3].cpu_node, 1);  // cpu-local-mem-remote
  EXPECT_EQ(plans[3].mem_node, 0);
  EXPECT_EQ(plans[4].cpu_node, 0);  // cpu-remote-mem-local
  EXPECT_EQ(plans[4].mem_node, 1);
}

TEST(Plan, Dgx2Gpu3LocalIsNode0RemoteIsNode1) {
  std::string path = own_topology("nvidiaDGX2.xml");
  auto plans = plan_arms(load(path), request({Arm::kLocal, Arm::kRemote}, 3));
  EXPECT_EQ(plans[0].mem_node, 0);
  EXPECT_EQ(plans[1].mem_node, 1);
  EXPECT_EQ(plans[1].workers[0].cpus, std::vector<int>{24});
}

TEST(Plan, Power8AndTheOneGpuNode) {
  std::string p8 = own_topology("power8gpudistances.xml");
  auto plans = plan_arms(load(p8), request({Arm::kLocal, Arm::kRemote}, 2));
  EXPECT_EQ(plans[0].mem_node, 1);
  EXPECT_EQ(plans[1].mem_node, 0);
  std::string p32 = own_topology("32em64t-2n8c2t-pci-normalio.xml");
  auto one = plan_arms(load(p32), request({Arm::kLocal, Arm::kRemote}, 0));
  EXPECT_EQ(one[0].mem_node, 1);
  EXPECT_EQ(one[1].mem_node, 0);
}

TEST(Plan, RemoteIsTheFarthestByDistanceWithTiesToTheNextOsIndex) {
  Inventory inv = load(own_topology("4n-2gpu.xml"));
  EXPECT_EQ(farthest_node(inv, 0), 3);  // 32 is the largest distance from node 0
  EXPECT_EQ(farthest_node(inv, 2), 1);
  // Make nodes 1 and 2 tie from node 3... they are 16 and 16; and 0 is 32: the farthest is 0.
  EXPECT_EQ(farthest_node(inv, 3), 0);
  Inventory flat = inv;
  for (auto& row : *flat.distances)
    for (auto& d : row) d = d == 10 ? 10 : 20;  // all remote nodes tie
  EXPECT_EQ(farthest_node(flat, 0), 1);
  EXPECT_EQ(farthest_node(flat, 2), 3);
  EXPECT_EQ(farthest_node(flat, 3), 0);  // wraps around
  flat.distances.reset();  // no matrix: the next by os_index
  EXPECT_EQ(farthest_node(flat, 1), 2);
}

TEST(Plan, RealMachinesWithOddOsIndexOrder) {
  std::string path = own_topology("16amd64-4distances.xml");
  Inventory inv = load(path);
  for (const auto& n : inv.numa_nodes) {
    auto far = farthest_node(inv, static_cast<int>(n.os_index));
    ASSERT_TRUE(far.has_value());
    EXPECT_NE(*far, static_cast<int>(n.os_index));
  }
  PlanRequest r = request({Arm::kLocal, Arm::kRemote});
  r.device.device_numa = 5;
  auto plans = plan_arms(inv, r);
  EXPECT_EQ(plans[0].mem_node, 5);
  EXPECT_NE(plans[1].mem_node, 5);
}

TEST(Plan, WorkersGetDisjointCpuSets) {
  Inventory inv = load(own_topology("2s2n-4gpu.xml"));
  PlanRequest r = request({Arm::kLocal}, 0);
  r.workers = 2;
  r.cpus_per_worker = 2;
  auto p = plan_arms(inv, r).front();
  EXPECT_EQ(p.workers[0].cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.workers[1].cpus, (std::vector<int>{2, 3}));
  r.workers = 3;
  std::string err = error_of(inv, r);
  EXPECT_NE(err.find("needs 6 CPUs on NUMA node 0"), std::string::npos) << err;
  EXPECT_NE(err.find("4 free"), std::string::npos) << err;
}

TEST(Plan, TrainingLoopTakesTheRestOfTheArmsCpuNode) {
  Inventory inv = load(own_topology("2s2n-4gpu.xml"));
  PlanRequest r = request({Arm::kLocal, Arm::kCpuRemoteMemLocal, Arm::kUnpinned}, 2);  // GPU 2: node 1 (CPUs 4-7)
  r.workers = 1;
  r.cpus_per_worker = 2;
  auto plans = plan_arms(inv, r);
  EXPECT_EQ(plans[0].loop.cpus, (std::vector<int>{6, 7}));  // beside the worker's 4-5
  EXPECT_EQ(plans[0].loop.mem_nodes, std::vector<int>{1});
  EXPECT_EQ(plans[1].loop.cpus, (std::vector<int>{2, 3}));  // CPUs follow the arm's CPU node, memory its memory node
  EXPECT_EQ(plans[1].loop.mem_nodes, std::vector<int>{1});
  EXPECT_TRUE(plans[2].loop.cpus.empty());
  EXPECT_TRUE(plans[2].loop.mem_nodes.empty());
  // Workers holding every CPU of the node: the loop shares them.
  r.workers = 2;
  EXPECT_EQ(plan_arms(inv, r)[0].loop.cpus, (std::vector<int>{4, 5, 6, 7}));
  // Only allowed CPUs.
  inv.allowed_cpus = "0-5";
  r.workers = 1;
  r.cpus_per_worker = 1;
  EXPECT_EQ(plan_arms(inv, r)[0].loop.cpus, std::vector<int>{5});
}

TEST(Plan, AllowedCpusetLimitsTheFreeCpus) {
  Inventory inv = load(own_topology("2s2n-4gpu.xml"));
  inv.allowed_cpus = "0-1,4-7";
  PlanRequest r = request({Arm::kLocal}, 0);
  r.cpus_per_worker = 3;
  std::string err = error_of(inv, r);
  EXPECT_NE(err.find("2 free (allowed: 0-1)"), std::string::npos) << err;
}

TEST(Plan, DegenerateArmsAreRefusedUnlessAllowed) {
  Inventory inv = load(own_topology("1n-cpu.xml"));
  PlanRequest r = request({Arm::kLocal, Arm::kRemote});
  std::string err = error_of(inv, r);
  EXPECT_NE(err.find("--allow-degenerate"), std::string::npos) << err;
  r.allow_degenerate = true;
  auto plans = plan_arms(inv, r);
  EXPECT_FALSE(plans[0].degenerate);
  EXPECT_TRUE(plans[1].degenerate);
  EXPECT_EQ(plans[1].mem_node, 0);
}

TEST(Plan, BadDevicesAreInputErrors) {
  Inventory gpus = load(own_topology("2s2n-4gpu.xml"));
  EXPECT_NE(error_of(gpus, request({Arm::kLocal}, 7)).find("has GPUs 0-3"), std::string::npos);
  Inventory cpu = load(own_topology("1n-cpu.xml"));
  EXPECT_NE(error_of(cpu, request({Arm::kLocal}, 0)).find("has no GPU"), std::string::npos);
  PlanRequest r = request({Arm::kLocal});
  r.device.device_numa = 4;
  EXPECT_NE(error_of(cpu, r).find("has NUMA nodes 0"), std::string::npos);
  PlanRequest named = request({Arm::kRemote}, 0);
  named.remote_node = 0;
  EXPECT_NE(error_of(gpus, named).find("device's own node"), std::string::npos);
}

TEST(Plan, ArmListsParseAndRejectUnknownNames) {
  EXPECT_EQ(parse_arm_list("local,remote", "--arms").size(), 2u);
  try {
    parse_arm_list("local,nearby", "--arms");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown arm 'nearby'; accepted: local, remote"), std::string::npos);
  }
}
