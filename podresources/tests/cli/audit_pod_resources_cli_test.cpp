// `placebench audit` with the kubelet's PodResources API (issue 28 item 2): the binary against a real gRPC
// server serving recorded answers (../test_server.h, tests/fixtures/podresources), for the trainer of
// tests/fixtures/audit/proc/4246 (ml/train-job-worker-0). The API's assignment is the one compared, the
// state files only the fallback, and each disagreement is one line naming both sides.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "run_command.h"
#include "test_server.h"

using namespace placebench::testing;
using placebench::podresources::testing::KubeletSocket;
using nlohmann::json;

namespace {

const std::string kAudit = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit";

json audit(const std::string& socket, const std::string& pid, CommandResult& r, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {placebench_binary(), "audit", "--json", "--proc-root", kAudit + "/proc", "--topology",
                                   own_topology("2s2n-4gpu.xml"), "--pid", pid, "--pod-resources-socket", socket,
                                   "--container", "trainer"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  r = run_command(argv, 60, {"POD_NAME=train-job-worker-0", "POD_NAMESPACE=ml"});
  return json::parse(r.out, nullptr, false);
}

TEST(AuditPodResourcesCli, TheKubeletsAnswerIsComparedAndEachDisagreementIsOneLine) {
  KubeletSocket kubelet("audit");
  CommandResult r;
  json j = audit(kubelet.path(), "4246", r);
  ASSERT_FALSE(j.is_discarded()) << r.err << r.out;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(j["managers"]["assignment_source"], "PodResources API");
  EXPECT_EQ(j["managers"]["pod_resources"]["status"], "read") << j["managers"]["pod_resources"];
  EXPECT_EQ(j["managers"]["pod_resources"]["call"], "Get");
  EXPECT_EQ(j["managers"]["pod_resources"]["container"]["cpus"], "1-2");
  const std::string all = j["disagreements"].dump();
  EXPECT_NE(all.find("GPU GPU-cccccccc-1111-2222-3333-444444444444 (nvidia.com/gpu) on node 1, exclusive CPUs 1-2 on node(s) 0"),
            std::string::npos) << all;
  EXPECT_NE(all.find("memory nodes 1 are allowed but the kubelet gave container trainer memory on 0"), std::string::npos) << all;
  EXPECT_EQ(all.find("the container sees"), std::string::npos) << all;  // the kubelet's GPU is the one the container has
  for (const json& d : j["disagreements"]) EXPECT_EQ(d.get<std::string>().find('\n'), std::string::npos);
}

TEST(AuditPodResourcesCli, AGpuOtherThanTheKubeletsIsNamedAndAMissingPodIsANote) {
  KubeletSocket kubelet("audit-other");
  CommandResult r;
  json j = audit(kubelet.path(), "4248", r);  // this process has GPU-dddd...; the kubelet's record says GPU-cccc...
  ASSERT_FALSE(j.is_discarded()) << r.err << r.out;
  EXPECT_NE(j["disagreements"].dump().find("the kubelet assigned GPU GPU-cccccccc-1111-2222-3333-444444444444 (nvidia.com/gpu, "
                                           "PodResources API), the container sees GPU-dddddddd-1111-2222-3333-444444444444"),
            std::string::npos) << j["disagreements"];
  CommandResult other;
  std::vector<std::string> argv = {placebench_binary(), "audit", "--json", "--proc-root", kAudit + "/proc", "--topology",
                                   own_topology("2s2n-4gpu.xml"), "--pid", "4246", "--pod-resources-socket", kubelet.path()};
  other = run_command(argv, 60, {"POD_NAME=train-job-worker-9", "POD_NAMESPACE=ml"});
  json missing = json::parse(other.out, nullptr, false);
  ASSERT_FALSE(missing.is_discarded()) << other.err;
  EXPECT_EQ(missing["managers"]["pod_resources"]["status"], "error");
  EXPECT_NE(missing["managers"]["notes"].dump().find("NOT_FOUND: pod train-job-worker-9 not found"), std::string::npos)
      << missing["managers"]["notes"];
  EXPECT_NE(missing["managers"]["assignment_source"], "PodResources API");
}

}  // namespace
