// GPU indices when CUDA_VISIBLE_DEVICES, Slurm --gpus-per-task or a device plugin hides GPUs (issue 16
// defect 4): only the visible GPUs are chosen, matched by PCI bus id, with both indices recorded.
// Runs on the 2-socket, 4-GPU fixture (GPUs at 17:00.0, 31:00.0 on node 0; b1:00.0, ca:00.0 on node 1).
#include <gtest/gtest.h>

#include <cstdlib>

#include "fixtures.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/placement/plan.h"
#include "placebench/harness/topology/gpu_mapping.h"
#include "placebench/harness/topology/inventory.h"

using namespace placebench::harness;
using placebench::kernels::CudaDevice;
using placebench::kernels::DeviceRuntime;
using placebench::testing::own_topology;

namespace {

Inventory fixture() { return build_inventory(Topology::load_file(own_topology("2s2n-4gpu.xml"))); }

DeviceRuntime runtime_seeing(const std::vector<std::string>& bus_ids) {
  DeviceRuntime rt;
  rt.built = true;
  rt.status = "ok";
  for (std::size_t i = 0; i < bus_ids.size(); ++i) rt.devices.push_back({static_cast<int>(i), "NVIDIA H200", bus_ids[i], 0, 9, 0});
  return rt;
}

std::vector<int> indices(const std::vector<GpuInfo>& gpus, bool pci) {
  std::vector<int> v;
  for (const GpuInfo& g : gpus) v.push_back(pci ? g.pci_index : g.index);
  return v;
}

// The inventory a process sees once the mapping is applied (what cross_check_live stores).
Inventory seen_by(const DeviceRuntime& rt, std::optional<std::string> visible) {
  Inventory inv = fixture();
  GpuMapping m = map_visible_gpus(inv.gpus, rt, visible);
  inv.gpus = m.visible;
  inv.hidden_gpus = m.hidden;
  return inv;
}

}  // namespace

TEST(GpuMapping, RuntimeDevicesMatchedByBusIdAndRenumberedFromZero) {
  // CUDA_VISIBLE_DEVICES=2,3: CUDA calls hwloc's GPUs 2 and 3 "0" and "1".
  GpuMapping m = map_visible_gpus(fixture().gpus, runtime_seeing({"0000:b1:00.0", "0000:ca:00.0"}), std::string("2,3"));
  EXPECT_EQ(indices(m.visible, false), (std::vector<int>{0, 1}));
  EXPECT_EQ(indices(m.visible, true), (std::vector<int>{2, 3}));
  EXPECT_EQ(m.visible[0].pci_bus_id, "0000:b1:00.0");
  EXPECT_EQ(m.visible[0].numa_node, 1);
  EXPECT_EQ(indices(m.hidden, true), (std::vector<int>{0, 1}));
  ASSERT_EQ(m.notes.size(), 2u);  // one per hidden GPU
}

TEST(GpuMapping, RuntimeOrderIsCudasNotPcis) {
  GpuMapping m = map_visible_gpus(fixture().gpus, runtime_seeing({"0000:ca:00.0", "0000:17:00.0"}), std::nullopt);
  EXPECT_EQ(indices(m.visible, true), (std::vector<int>{3, 0}));
  EXPECT_EQ(indices(m.visible, false), (std::vector<int>{0, 1}));
}

TEST(GpuMapping, WithoutRuntimeTheVariableSelectsInPciOrder) {
  GpuMapping m = map_visible_gpus(fixture().gpus, DeviceRuntime{}, std::string("3, 1"));
  EXPECT_EQ(indices(m.visible, false), (std::vector<int>{0, 1}));
  EXPECT_EQ(indices(m.visible, true), (std::vector<int>{3, 1}));
  EXPECT_EQ(indices(m.hidden, true), (std::vector<int>{0, 2}));
}

TEST(GpuMapping, AnInvalidIndexEndsTheListAsInCuda) {
  GpuMapping m = map_visible_gpus(fixture().gpus, DeviceRuntime{}, std::string("1,7,2"));
  EXPECT_EQ(indices(m.visible, true), (std::vector<int>{1}));
  EXPECT_EQ(m.hidden.size(), 3u);
}

TEST(GpuMapping, EmptyOrMinusOneHidesEveryGpu) {
  for (std::string v : {"", "-1"}) {
    GpuMapping m = map_visible_gpus(fixture().gpus, DeviceRuntime{}, v);
    EXPECT_TRUE(m.visible.empty()) << v;
    EXPECT_EQ(m.hidden.size(), 4u) << v;
  }
}

TEST(GpuMapping, UuidsWithoutRuntimeKeepEveryGpuWithANote) {
  GpuMapping m = map_visible_gpus(fixture().gpus, DeviceRuntime{}, std::string("GPU-8f2a1c3e-0000"));
  EXPECT_EQ(m.visible.size(), 4u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("UUID"), std::string::npos);
}

TEST(GpuMapping, NoVariableNoRuntimeKeepsPciOrder) {
  GpuMapping m = map_visible_gpus(fixture().gpus, DeviceRuntime{}, std::nullopt);
  EXPECT_EQ(indices(m.visible, false), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(indices(m.visible, true), (std::vector<int>{0, 1, 2, 3}));
}

TEST(GpuMapping, CrossCheckLiveKeepsOnlyTheVisibleGpus) {
  Inventory inv = fixture();
  ::setenv("CUDA_VISIBLE_DEVICES", "2", 1);
  cross_check_live(inv, DeviceRuntime{}, "/nonexistent");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].index, 0);
  EXPECT_EQ(inv.gpus[0].pci_index, 2);
  EXPECT_EQ(inv.hidden_gpus.size(), 3u);
  EXPECT_EQ(inv.gpus[0].numa_node, 1);
}

TEST(GpuMapping, HiddenGpusAreNotChosenByIndex) {
  // The process sees hwloc's GPU 2 only: --gpu 0 is that GPU (node 1); --gpu 2 does not exist for CUDA.
  Inventory inv = seen_by(runtime_seeing({"0000:b1:00.0"}), std::nullopt);
  DeviceSelector gpu0;
  gpu0.gpu = 0;
  EXPECT_EQ(device_numa_node(inv, gpu0), 1);
  DeviceSelector gpu2;
  gpu2.gpu = 2;
  EXPECT_THROW(device_numa_node(inv, gpu2), InputError);
}

TEST(GpuMapping, PerTaskGpusGiveEveryLocalRankItsOwnVisibleDevice) {
  // Slurm --gpus-per-task=1: local rank 3 of 4 sees one GPU (hwloc's 3) as CUDA device 0.
  Inventory inv = seen_by(runtime_seeing({"0000:ca:00.0"}), std::nullopt);
  RankIdentity who{3, 3, 4, "node"};
  RankDevice d = rank_device(inv, DeviceSelector{}, who, 1);
  ASSERT_TRUE(d.device.gpu.has_value());
  EXPECT_EQ(*d.device.gpu, 0);  // not cudaSetDevice(3) in a process that sees one device
  EXPECT_EQ(d.pci_index, 3);
  EXPECT_EQ(d.pci_bus_id, "0000:ca:00.0");
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.worker, 3);  // the other ranks' GPUs are unknown here: disjoint slots for all
  EXPECT_EQ(d.workers, 4);
}

TEST(GpuMapping, AllGpusVisibleKeepsOneGpuPerLocalRank) {
  Inventory inv = seen_by(runtime_seeing({"0000:17:00.0", "0000:31:00.0", "0000:b1:00.0", "0000:ca:00.0"}), std::nullopt);
  RankIdentity who{2, 2, 4, "node"};
  RankDevice d = rank_device(inv, DeviceSelector{}, who, 1);
  EXPECT_EQ(*d.device.gpu, 2);
  EXPECT_EQ(d.pci_index, 2);
  EXPECT_EQ(d.worker, 0);  // first of the two ranks on node 1
  EXPECT_EQ(d.workers, 2);
}

TEST(GpuMapping, TooFewVisibleGpusSaysHowManyAreHidden) {
  Inventory inv = seen_by(runtime_seeing({"0000:17:00.0", "0000:31:00.0"}), std::nullopt);
  RankIdentity who{3, 3, 4, "node"};
  try {
    rank_device(inv, DeviceSelector{}, who, 1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 more hidden"), std::string::npos) << e.what();
  }
}
