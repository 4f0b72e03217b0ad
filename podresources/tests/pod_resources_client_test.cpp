// The PodResources client against a real gRPC server serving recorded answers (test_server.h): List, Get
// and GetAllocatableResources give every field (devices with their NUMA nodes, exclusive CPUs, memory,
// DRA claims); a pod the kubelet does not know, a socket nobody serves and a kubelet that does not answer
// in time are one-line errors, within the deadline.
#include <gtest/gtest.h>

#include <chrono>

#include "placebench/podresources/pod_resources.h"
#include "test_server.h"

using namespace placebench::podresources;
using placebench::podresources::testing::KubeletSocket;

namespace {

constexpr std::chrono::milliseconds kDeadline{5000};

TEST(PodResourcesClient, ListGivesEveryContainersDevicesCpusMemoryAndClaims) {
  KubeletSocket kubelet("list");
  PodsAnswer a = Client(kubelet.path(), kDeadline).list();
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_EQ(a.pods.size(), 3u);
  const Pod& trainer = a.pods[0];
  EXPECT_EQ(trainer.name, "train-job-worker-0");
  EXPECT_EQ(trainer.namespace_name, "ml");
  ASSERT_EQ(trainer.containers.size(), 2u);
  const Container& c = trainer.containers[0];
  EXPECT_EQ(c.name, "trainer");
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].resource_name, "nvidia.com/gpu");
  EXPECT_EQ(c.devices[0].device_ids, (std::vector<std::string>{"GPU-cccccccc-1111-2222-3333-444444444444"}));
  EXPECT_EQ(c.devices[0].numa_nodes, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(c.cpu_ids, (std::vector<std::int64_t>{1, 2}));
  ASSERT_EQ(c.memory.size(), 1u);
  EXPECT_EQ(c.memory[0].memory_type, "memory");
  EXPECT_EQ(c.memory[0].size_bytes, 17179869184u);
  EXPECT_EQ(c.memory[0].numa_nodes, (std::vector<std::int64_t>{0}));
  const Container& dra = a.pods[1].containers[0];
  ASSERT_EQ(dra.dynamic_resources.size(), 1u);
  EXPECT_EQ(dra.dynamic_resources[0].claim_name, "dra-trainer-0-gpu-7xk2p");
  ASSERT_EQ(dra.dynamic_resources[0].devices.size(), 1u);
  EXPECT_EQ(dra.dynamic_resources[0].devices[0].driver_name, "gpu.nvidia.com");
  EXPECT_EQ(dra.dynamic_resources[0].devices[0].pool_name, "gpu-node-7");
  EXPECT_EQ(dra.dynamic_resources[0].devices[0].device_name, "gpu-0");
  EXPECT_EQ(dra.dynamic_resources[0].devices[0].cdi_devices, (std::vector<std::string>{"k8s.gpu.nvidia.com/device=gpu-0"}));
}

TEST(PodResourcesClient, GetAnswersOnePodOrNotFound) {
  KubeletSocket kubelet("get");
  Client client(kubelet.path(), kDeadline);
  PodsAnswer a = client.get("train-job-worker-0", "ml");
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_EQ(a.pods.size(), 1u);
  EXPECT_EQ(a.pods[0].containers[0].cpu_ids, (std::vector<std::int64_t>{1, 2}));
  PodsAnswer missing = client.get("train-job-worker-0", "default");
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("Get on " + kubelet.path() + ": NOT_FOUND: pod train-job-worker-0 not found"), std::string::npos)
      << missing.error;
}

TEST(PodResourcesClient, AllocatableResourcesGiveTheNodesGpusAndTheirNodes) {
  KubeletSocket kubelet("allocatable");
  AllocatableAnswer a = Client(kubelet.path(), kDeadline).allocatable();
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_EQ(a.allocatable.devices.size(), 4u);
  EXPECT_EQ(a.allocatable.devices[3].device_ids[0], "GPU-dddddddd-1111-2222-3333-444444444444");
  EXPECT_EQ(a.allocatable.devices[3].numa_nodes, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(a.allocatable.cpu_ids.size(), 7u);
  EXPECT_EQ(a.allocatable.memory.size(), 2u);
}

TEST(PodResourcesClient, NoServerAndASlowKubeletAreErrorsWithinTheDeadline) {
  const std::string nobody = std::filesystem::temp_directory_path() / "pb-pod-resources-nobody.sock";
  auto start = std::chrono::steady_clock::now();
  PodsAnswer none = Client(nobody, std::chrono::milliseconds(500)).list();
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("List on " + nobody + ": "), std::string::npos) << none.error;
  EXPECT_EQ(none.error.find('\n'), std::string::npos) << none.error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));

  KubeletSocket kubelet("slow");
  kubelet.service.delay = std::chrono::seconds(5);
  start = std::chrono::steady_clock::now();
  PodsAnswer slow = Client(kubelet.path(), std::chrono::milliseconds(300)).list();
  EXPECT_FALSE(slow.ok);
  EXPECT_NE(slow.error.find("DEADLINE_EXCEEDED"), std::string::npos) << slow.error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE(built());
}

}  // namespace
