// Which GPUs a workload has (issue 28 item 1): every form of NVIDIA_VISIBLE_DEVICES the device plugin
// and the container toolkit use, CUDA_VISIBLE_DEVICES counted within the container's GPUs, UUIDs mapped
// to bus ids from the driver's /proc files (tests/fixtures/audit/proc/driver) and hwloc's NVIDIAUUID
// (hwloc's own DGX-2 topology), and every GPU that cannot be identified kept as unknown with its reason.
// The 4-GPU fixture: 17:00.0 (aaaa...), 31:00.0 (bbbb...) on node 0; b1:00.0 (cccc...), ca:00.0 (dddd...) on node 1.
#include <gtest/gtest.h>

#include "fixtures.h"
#include "placebench/harness/audit/gpu_identity.h"

using namespace placebench::harness;
using placebench::testing::own_topology;

namespace {

const std::string kProc = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit/proc";
const std::string kA = "GPU-aaaaaaaa-1111-2222-3333-444444444444", kC = "GPU-cccccccc-1111-2222-3333-444444444444",
                  kD = "GPU-dddddddd-1111-2222-3333-444444444444";

std::vector<GpuInfo> node() { return build_inventory(Topology::load_file(own_topology("2s2n-4gpu.xml"))).gpus; }
NodeGpuIds ids() { return read_node_gpu_ids(kProc, node(), false); }

WorkloadGpus resolve(std::optional<std::string> nvidia, std::optional<std::string> cuda, const NodeGpuIds& from = ids()) {
  return resolve_workload_gpus(node(), from, nvidia, cuda);
}

std::vector<std::string> buses(const WorkloadGpus& w) {
  std::vector<std::string> out;
  for (const WorkloadGpu& g : w.gpus) out.push_back(g.gpu ? g.gpu->pci_bus_id : "unknown");
  return out;
}

TEST(GpuIdentity, ParsesTheDriversInformationFile) {
  std::optional<NodeGpuId> id = parse_nvidia_gpu_information(
      "Model: \t\t NVIDIA H200\nIRQ:   \t\t 215\nGPU UUID: \t GPU-3E1CD5B6-0c2b-7b4e-9a6b-6d0a0c0b9d5f\n"
      "Bus Location: \t 00000000:17:00.0\nDevice Minor: \t 0\n", "0000:17:00.0", "info");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->uuid, "GPU-3E1CD5B6-0c2b-7b4e-9a6b-6d0a0c0b9d5f");
  EXPECT_EQ(id->pci_bus_id, "0000:17:00.0");
  // The driver prints question marks for a GPU it has not queried: no UUID, not a wrong one.
  EXPECT_FALSE(parse_nvidia_gpu_information("GPU UUID: \t GPU-" + std::string(8, '?') + "-" + std::string(4, '?') + "-" +
                                                    std::string(4, '?') + "-" + std::string(4, '?') + "-" + std::string(12, '?') + "\n",
                                                "0000:17:00.0", "i"));
  std::optional<NodeGpuId> from_path = parse_nvidia_gpu_information("GPU UUID: " + kA + "\n", "0000:B1:00.0", "i");
  ASSERT_TRUE(from_path);
  EXPECT_EQ(from_path->pci_bus_id, "0000:b1:00.0");
}

TEST(GpuIdentity, ReadsTheNodesUuidsFromProcAndFromHwloc) {
  NodeGpuIds proc = ids();
  ASSERT_EQ(proc.gpus.size(), 4u);
  EXPECT_EQ(proc.gpus[2].uuid, kC);
  EXPECT_EQ(proc.gpus[2].pci_bus_id, "0000:b1:00.0");
  std::vector<GpuInfo> dgx = build_inventory(Topology::load_file(own_topology("nvidiaDGX2.xml"))).gpus;
  NodeGpuIds hwloc = read_node_gpu_ids("/nonexistent", dgx, false);
  ASSERT_EQ(hwloc.gpus.size(), 16u);
  WorkloadGpus w = resolve_workload_gpus(dgx, hwloc, "GPU-d3977428-7a30-086b-2e20-5c1eeed647c6", std::nullopt);
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(buses(w), (std::vector<std::string>{"0000:34:00.0"}));
  EXPECT_NE(w.gpus[0].how.find("hwloc NVIDIAUUID (nvml0)"), std::string::npos) << w.gpus[0].how;
}

TEST(GpuIdentity, CudaIndexCountsTheContainersGpusNotTheNodes) {
  WorkloadGpus w = resolve(kC, "0");  // the trainer: index 0 is GPU-cccc..., not the node's GPU 0
  EXPECT_EQ(buses(w), (std::vector<std::string>{"0000:b1:00.0"}));
  EXPECT_EQ(w.gpus[0].index, 0);
  EXPECT_EQ(w.gpus[0].uuid, kC);
  // Two by UUID: the container counts them in PCI bus order, so index 1 is dddd... (ca:00.0).
  EXPECT_EQ(buses(resolve(kD + "," + kA, "1")), (std::vector<std::string>{"0000:ca:00.0"}));
  EXPECT_EQ(buses(resolve("2,3", "0")), (std::vector<std::string>{"0000:b1:00.0"}));
  EXPECT_EQ(buses(resolve("3,1", std::nullopt)), (std::vector<std::string>{"0000:31:00.0", "0000:ca:00.0"}));
  // No toolkit filter: indices are the node's.
  EXPECT_EQ(buses(resolve(std::nullopt, "3")), (std::vector<std::string>{"0000:ca:00.0"}));
}

TEST(GpuIdentity, AllNoneVoidAndEmpty) {
  EXPECT_EQ(resolve("all", std::nullopt).gpus.size(), 4u);
  for (const char* none : {"none", "void", ""}) {
    WorkloadGpus w = resolve(std::string(none), std::nullopt);
    EXPECT_TRUE(w.gpus.empty()) << none;
    EXPECT_NE(w.no_gpu_reason.find("no GPU"), std::string::npos) << w.no_gpu_reason;
  }
  EXPECT_NE(resolve("all", "-1").no_gpu_reason.find("CUDA sees no GPU"), std::string::npos);
}

TEST(GpuIdentity, CudaUuidsMayBePrefixesAndCudaStopsAtTheFirstBadEntry) {
  EXPECT_EQ(buses(resolve("all", "GPU-dddd")), (std::vector<std::string>{"0000:ca:00.0"}));
  WorkloadGpus w = resolve("all", "2,9,0");  // 9 does not exist: CUDA uses 2 only
  EXPECT_EQ(buses(w), (std::vector<std::string>{"0000:b1:00.0"}));
  ASSERT_FALSE(w.notes.empty());
  EXPECT_NE(w.notes[0].find("CUDA ignores 9"), std::string::npos) << w.notes[0];
  EXPECT_EQ(buses(resolve("all", "1,1")), (std::vector<std::string>{"0000:31:00.0"}));
}

TEST(GpuIdentity, AGpuNoSourceNamesIsUnknownWithTheReason) {
  WorkloadGpus w = resolve("GPU-eeeeeeee-1111-2222-3333-444444444444", std::nullopt);
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_FALSE(w.gpus[0].gpu);
  EXPECT_NE(w.gpus[0].unknown_reason.find("no source maps to a PCI bus id"), std::string::npos) << w.gpus[0].unknown_reason;
  EXPECT_NE(w.gpus[0].unknown_reason.find("driver/nvidia/gpus: 4 GPU UUID(s)"), std::string::npos) << w.gpus[0].unknown_reason;
  // Without any source of UUIDs, the device plugin's UUID form cannot be placed: unknown, never "all four".
  NodeGpuIds nothing = read_node_gpu_ids("/nonexistent", node(), false);
  WorkloadGpus blind = resolve(kC, "0", nothing);
  ASSERT_EQ(blind.gpus.size(), 1u);
  EXPECT_FALSE(blind.gpus[0].gpu);
  EXPECT_NE(blind.gpus[0].unknown_reason.find("order is unknown"), std::string::npos) << blind.gpus[0].unknown_reason;
  EXPECT_FALSE(resolve(std::nullopt, kC, nothing).gpus[0].gpu);  // a UUID in CUDA's variable alone
  EXPECT_FALSE(resolve("7", std::nullopt).gpus[0].gpu);          // an index the node does not have
  EXPECT_FALSE(resolve("/var/run/nvidia-container-devices", std::nullopt).gpus[0].gpu);
  EXPECT_FALSE(resolve("fast-gpu", std::nullopt).gpus[0].gpu);
}

TEST(GpuIdentity, SourcesThatDisagreeMakeTheGpuUnknown) {
  NodeGpuIds two = ids();
  two.gpus.push_back({kC, "0000:17:00.0", "NVML"});
  WorkloadGpus w = resolve(kC, std::nullopt, two);
  EXPECT_NE(w.gpus[0].unknown_reason.find("they disagree"), std::string::npos) << w.gpus[0].unknown_reason;
}

TEST(GpuIdentity, MigDevicesArePlacedOnTheirGpu) {
  EXPECT_EQ(buses(resolve("MIG-" + kC + "/1/0", std::nullopt)), (std::vector<std::string>{"0000:b1:00.0"}));
  EXPECT_EQ(buses(resolve("1:0", std::nullopt)), (std::vector<std::string>{"0000:31:00.0"}));
  const std::string mig = "MIG-0a1b2c3d-1111-2222-3333-444444444444";
  WorkloadGpus without_nvml = resolve(mig, "0");
  EXPECT_FALSE(without_nvml.gpus[0].gpu);
  EXPECT_NE(without_nvml.gpus[0].unknown_reason.find("only NVML maps"), std::string::npos);
  NodeGpuIds with_nvml = ids();
  with_nvml.migs.push_back({mig, kD});
  WorkloadGpus w = resolve(mig, "MIG-0a1b", with_nvml);
  EXPECT_EQ(buses(w), (std::vector<std::string>{"0000:ca:00.0"}));
  EXPECT_EQ(w.gpus[0].uuid, mig);
}

}  // namespace

namespace {

TEST(GpuIdentity, CudaDeviceOrderFastestFirstOverTwoModelsMakesAnIndexUnknown) {
  std::vector<GpuInfo> mixed = node();
  mixed[2].name = "NVIDIA H200";
  mixed[3].name = "NVIDIA L40S";
  WorkloadGpus fastest = resolve_workload_gpus(mixed, ids(), std::string("2,3"), std::string("0"), std::nullopt);
  ASSERT_EQ(fastest.gpus.size(), 1u);
  EXPECT_FALSE(fastest.gpus[0].gpu.has_value());
  EXPECT_NE(fastest.gpus[0].unknown_reason.find("CUDA_DEVICE_ORDER is unset (FASTEST_FIRST)"), std::string::npos)
      << fastest.gpus[0].unknown_reason;
  WorkloadGpus pci = resolve_workload_gpus(mixed, ids(), std::string("2,3"), std::string("0"), std::string("PCI_BUS_ID"));
  EXPECT_EQ(buses(pci), (std::vector<std::string>{"0000:b1:00.0"}));
}

}  // namespace
