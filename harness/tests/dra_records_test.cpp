// DRA records (issue 28 item 2): a ResourceClaim's allocation joined with the ResourceSlice that publishes
// the device (tests/fixtures/audit/dra, shaped as `kubectl get resourceclaims,resourceslices -A -o json`
// prints them with the NVIDIA DRA driver's attributes), v1beta1's device.basic layout, a device no slice
// publishes, and a document that is not a List.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "placebench/harness/audit/dra.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;

namespace {

const std::string kFile = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit/dra/claims-and-slices.json";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DraRecords, TheClaimsDeviceIsJoinedWithItsSlicesAttributes) {
  std::vector<DraGpu> gpus = parse_dra_records(slurp(kFile), kFile);
  ASSERT_EQ(gpus.size(), 1u);
  const DraGpu& g = gpus[0];
  EXPECT_EQ(g.claim, "ml/dra-trainer-0-gpu-7xk2p");
  EXPECT_EQ(g.pods, (std::vector<std::string>{"dra-trainer-0"}));
  EXPECT_EQ(g.device, "gpu-2");
  EXPECT_EQ(g.uuid, "GPU-cccccccc-1111-2222-3333-444444444444");
  EXPECT_EQ(g.pci_bus_id, "0000:b1:00.0");
  EXPECT_EQ(g.numa_node, 1);
  EXPECT_EQ(g.pcie_root, "pci0000:b0");
  EXPECT_EQ(g.problem, "");
}

TEST(DraRecords, V1beta1BasicAttributesAndAnUnpublishedDevice) {
  const std::string text = R"({"kind":"List","items":[
    {"kind":"ResourceClaim","metadata":{"name":"c","namespace":"ml"},
     "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.nvidia.com","pool":"p","device":"gpu-0"},
                                                   {"request":"gpu","driver":"gpu.nvidia.com","pool":"p","device":"gpu-9"}]}},
               "reservedFor":[{"resource":"pods","name":"w","uid":"u1"}]}},
    {"kind":"ResourceSlice","spec":{"driver":"gpu.nvidia.com","pool":{"name":"p"},"devices":[
      {"name":"gpu-0","basic":{"attributes":{"gpu.nvidia.com/numaNode":{"int":0},"uuid":{"string":"GPU-x"}}}}]}}]})";
  std::vector<DraGpu> gpus = parse_dra_records(text, "f.json");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].numa_node, 0);
  EXPECT_EQ(gpus[0].uuid, "GPU-x");
  EXPECT_NE(gpus[1].problem.find("no ResourceSlice of driver gpu.nvidia.com pool p publishes device gpu-9"), std::string::npos);
  EXPECT_EQ(gpus[1].pod_uids, (std::vector<std::string>{"u1"}));
}

TEST(DraRecords, ADocumentThatIsNotAListIsBadInputNamingTheFile) {
  try {
    parse_dra_records(R"({"kind":"Pod"})", "pod.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pod.json: not a Kubernetes List"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

const std::string kMetadataDir = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit/dra/metadata";

TEST(DraMetadata, TheFirstKnownVersionOfTheStreamGivesTheContainersOwnDevice) {
  std::vector<std::string> warnings, notes;
  std::vector<DraGpu> gpus = read_dra_metadata_dir(kMetadataDir, warnings, notes);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  ASSERT_EQ(gpus.size(), 1u);  // the v1beta1 object (unknown here) is skipped, the v1alpha1 one read
  EXPECT_EQ(gpus[0].device, "gpu-2");
  EXPECT_EQ(gpus[0].pci_bus_id, "0000:b1:00.0");
  EXPECT_EQ(gpus[0].uuid, "GPU-cccccccc-1111-2222-3333-444444444444");
  EXPECT_TRUE(gpus[0].container_own);
  EXPECT_FALSE(gpus[0].numa_node.has_value());
  EXPECT_EQ(dra_gpus_of(gpus, "some-other-uid", "").size(), 1u);  // its own, whatever the pod identity
}

TEST(DraMetadata, EmptyUnknownAndDamagedFiles) {
  std::vector<std::string> notes;
  EXPECT_TRUE(parse_dra_metadata("", "e.json", notes).empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("e.json is empty"), std::string::npos);
  EXPECT_TRUE(parse_dra_metadata(R"({"kind":"DeviceMetadata","apiVersion":"metadata.resource.k8s.io/v9"})", "v.json", notes).empty());
  EXPECT_NE(notes[1].find("found metadata.resource.k8s.io/v9"), std::string::npos) << notes[1];
  EXPECT_THROW(parse_dra_metadata("{\"kind\":", "d.json", notes), InputError);
}

TEST(DraTargets, AnIdentifiedDraGpuIsJudgedAndOneWithoutPlaceIsUnknown) {
  AuditObservation o;
  GpuInfo b1;
  b1.pci_bus_id = "0000:b1:00.0";
  b1.numa_node = 1;
  o.inventory.hidden_gpus.push_back(b1);
  DraGpu placed, lost;
  placed.device = "gpu-2", placed.claim = "ml/x", placed.pci_bus_id = "0000:b1:00.0", placed.source = "m.json";
  lost.device = "gpu-9", lost.claim = "ml/x", lost.pci_bus_id = "0000:ff:00.0", lost.source = "m.json";
  add_dra_targets(o, {placed, lost});
  ASSERT_EQ(o.targets.size(), 2u);
  EXPECT_EQ(o.targets[0].label, "DRA GPU gpu-2 (claim ml/x)");
  EXPECT_EQ(o.targets[0].numa_node, 1);
  EXPECT_EQ(o.targets[0].unknown_reason, "");
  EXPECT_NE(o.targets[1].unknown_reason.find("no numaNode attribute and the topology has no GPU at 0000:ff:00.0"), std::string::npos);
}

}  // namespace
