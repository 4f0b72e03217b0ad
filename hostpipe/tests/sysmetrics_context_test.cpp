// Run context extras on fixture trees (tests/fixtures/proc/context-v1, context-v2, kubelet/) and on
// this machine.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"

using namespace placebench::hostpipe::sysmetrics;

namespace {

const std::string kFixtures = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/proc";

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(SysmetricsRunContext, ReadsKubeletPolicies) {
  KubeletPolicies k = read_kubelet_policies(kFixtures + "/kubelet/config.yaml");
  EXPECT_EQ(k.status, "read") << k.detail;
  EXPECT_EQ(k.cpu_manager_policy, "static");
  EXPECT_EQ(k.topology_manager_policy, "single-numa-node");
  EXPECT_EQ(k.topology_manager_scope, "pod");
  EXPECT_EQ(k.memory_manager_policy, "None");  // the kubelet's default: the file leaves it out
  EXPECT_EQ(k.defaulted, std::vector<std::string>{"memoryManagerPolicy"});
}

TEST(SysmetricsRunContext, AbsentKubeletConfigIsQuiet) {
  KubeletPolicies k = read_kubelet_policies("/nonexistent/kubelet/config.yaml");
  EXPECT_EQ(k.status, "absent");
  EXPECT_TRUE(k.cpu_manager_policy.empty());
  RunContextExtras x = collect_run_context_extras(kFixtures + "/context-v1/proc", kFixtures + "/context-v1/sys",
                                                  "/nonexistent/kubelet/config.yaml");
  EXPECT_FALSE(contains(x.warnings, "kubelet"));
  nlohmann::json j = run_context_extras_to_json(x);
  EXPECT_EQ(j["kubelet"]["status"], "absent");
  EXPECT_FALSE(j["kubelet"].contains("cpu_manager_policy"));
}

TEST(SysmetricsRunContext, MalformedKubeletConfigIsAWarningNotACrash) {
  for (const char* name : {"malformed.yaml", "not-a-map.yaml", "policy-not-a-string.yaml"}) {
    std::string path = kFixtures + "/kubelet/" + name;
    KubeletPolicies k = read_kubelet_policies(path);
    EXPECT_EQ(k.status, "malformed") << name;
    EXPECT_NE(k.detail.find(path), std::string::npos) << k.detail;
    EXPECT_TRUE(k.cpu_manager_policy.empty()) << name;
    RunContextExtras x =
        collect_run_context_extras(kFixtures + "/context-v1/proc", kFixtures + "/context-v1/sys", path);
    EXPECT_TRUE(contains(x.warnings, "kubelet config is malformed")) << name;
  }
  EXPECT_NE(read_kubelet_policies(kFixtures + "/kubelet/malformed.yaml").detail.find("line"), std::string::npos);
  EXPECT_NE(read_kubelet_policies(kFixtures + "/kubelet/policy-not-a-string.yaml").detail.find("cpuManagerPolicy"),
            std::string::npos);
}

// Read as every input is (hostpipe/input_file.h): a FIFO is not waited on, text that is not UTF-8 (which
// the run context's JSON could not hold) is malformed.
TEST(SysmetricsRunContext, KubeletConfigThatIsAFifoOrNotUtf8IsRecordedNotFatal) {
  std::string fifo = testing::TempDir() + "/sysmetrics_kubelet_fifo.yaml";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  KubeletPolicies k = read_kubelet_policies(fifo);
  EXPECT_EQ(k.status, "unreadable");
  EXPECT_NE(k.detail.find("not a regular file (a FIFO)"), std::string::npos) << k.detail;
  std::string latin1 = testing::TempDir() + "/sysmetrics_kubelet_latin1.yaml";
  std::ofstream(latin1) << "cpuManagerPolicy: st\xE4tic\n";
  k = read_kubelet_policies(latin1);
  EXPECT_EQ(k.status, "malformed");
  EXPECT_NE(k.detail.find("line 1: cpuManagerPolicy: the value holds bytes that are not UTF-8"), std::string::npos) << k.detail;
  EXPECT_NO_THROW(run_context_extras_to_json(
      collect_run_context_extras(kFixtures + "/context-v1/proc", kFixtures + "/context-v1/sys", latin1)).dump());
}

TEST(SysmetricsRunContext, EmptyKubeletConfigMeansDefaults) {
  std::string path = testing::TempDir() + "/sysmetrics_empty_kubelet.yaml";
  std::ofstream(path) << "# nothing set\n";
  KubeletPolicies k = read_kubelet_policies(path);
  EXPECT_EQ(k.status, "read") << k.detail;
  EXPECT_EQ(k.cpu_manager_policy, "none");
  EXPECT_EQ(k.topology_manager_scope, "container");
  EXPECT_EQ(k.defaulted.size(), 4u);
}

TEST(SysmetricsRunContext, ReadsCgroupV2TightestLimits) {
  CgroupLimits c = read_cgroup_limits(kFixtures + "/context-v2/proc", kFixtures + "/context-v2/sys");
  EXPECT_EQ(c.version, 2);
  ASSERT_TRUE(c.cpu_limit_cpus);
  EXPECT_DOUBLE_EQ(*c.cpu_limit_cpus, 2.0);  // the container's 2 CPUs, under the pod's 4
  EXPECT_EQ(c.cpu_max, "200000 100000");
  EXPECT_NE(c.cpu_path.find("cri-containerd-abc.scope"), std::string::npos);
  ASSERT_TRUE(c.memory_max_bytes);
  EXPECT_EQ(*c.memory_max_bytes, std::uint64_t{16} << 30);  // the pod's limit: the container has none
  EXPECT_NE(c.memory_path.find("kubepods-pod123.slice"), std::string::npos);
  EXPECT_EQ(c.memory_path.find("cri-containerd"), std::string::npos);
  EXPECT_EQ(c.cpuset_cpus_effective, "2-3");
  EXPECT_EQ(c.detail, "");
}

TEST(SysmetricsRunContext, ReadsCgroupV1Hybrid) {
  CgroupLimits c = read_cgroup_limits(kFixtures + "/context-v1/proc", kFixtures + "/context-v1/sys");
  EXPECT_EQ(c.version, 1);
  ASSERT_TRUE(c.cpu_limit_cpus);
  EXPECT_DOUBLE_EQ(*c.cpu_limit_cpus, 1.5);  // found under the co-mounted "cpu,cpuacct"
  EXPECT_EQ(c.cpu_max, "150000 100000");
  ASSERT_TRUE(c.memory_max_bytes);
  EXPECT_EQ(*c.memory_max_bytes, std::uint64_t{8} << 30);  // v1's "unlimited" value is not a limit
  EXPECT_EQ(c.cpuset_cpus_effective, "0-1");
}

TEST(SysmetricsRunContext, NoCgroupInformationIsRecordedNotThrown) {
  CgroupLimits c = read_cgroup_limits("/nonexistent/proc", "/nonexistent/sys");
  EXPECT_EQ(c.version, 0);
  EXPECT_FALSE(c.cpu_limit_cpus);
  EXPECT_NE(c.detail.find("/nonexistent/proc/self/cgroup"), std::string::npos);
}

TEST(SysmetricsRunContext, SummarisesGovernorsAndWarns) {
  RunContextExtras x = collect_run_context_extras(kFixtures + "/context-v2/proc", kFixtures + "/context-v2/sys",
                                                  kFixtures + "/kubelet/config.yaml");
  EXPECT_EQ(x.cpu_frequency.governors.size(), 2u);
  EXPECT_EQ(x.cpu_frequency.governors["performance"], (std::vector<int>{0, 3}));
  EXPECT_EQ(x.cpu_frequency.governors["powersave"], (std::vector<int>{1, 2}));
  EXPECT_EQ(x.cpu_frequency.driver, "intel_pstate");
  EXPECT_EQ(x.cpu_frequency.turbo_enabled, true);
  EXPECT_EQ(x.swap_used_bytes, std::uint64_t{512} << 20);
  EXPECT_TRUE(contains(x.warnings, "governor is 'powersave' on CPUs 1-2"));
  EXPECT_FALSE(contains(x.warnings, "governor is 'performance'"));
  EXPECT_TRUE(contains(x.warnings, "turbo"));
  EXPECT_TRUE(contains(x.warnings, "swap is in use (512 MiB)"));
  EXPECT_TRUE(contains(x.warnings, "CPU quota of 2.00 CPUs"));
#ifdef NDEBUG
  EXPECT_FALSE(x.debug_build);
  EXPECT_FALSE(contains(x.warnings, "NDEBUG"));
#else
  EXPECT_TRUE(contains(x.warnings, "NDEBUG"));
#endif

  nlohmann::json j = run_context_extras_to_json(x);
  EXPECT_EQ(j["kubelet"]["cpu_manager_policy"], "static");
  EXPECT_EQ(j["kubelet"]["topology_manager_policy"], "single-numa-node");
  EXPECT_EQ(j["cgroup"]["version"], 2);
  EXPECT_EQ(j["cgroup"]["cpu_limit_cpus"], 2.0);
  EXPECT_EQ(j["cgroup"]["memory_max_bytes"], std::uint64_t{16} << 30);
  EXPECT_EQ(j["cpu_frequency"]["governors"], (nlohmann::json{{"performance", "0,3"}, {"powersave", "1-2"}}));
  EXPECT_EQ(j["swap_used_bytes"], std::uint64_t{512} << 20);
  EXPECT_EQ(j["warnings"].size(), x.warnings.size());
}

TEST(SysmetricsRunContext, QuietMachineHasNoWarnings) {
  RunContextExtras x = collect_run_context_extras(kFixtures + "/context-v1/proc", kFixtures + "/context-v1/sys",
                                                  "/nonexistent");
  EXPECT_TRUE(x.cpu_frequency.governors.empty());
  EXPECT_EQ(x.cpu_frequency.turbo_enabled, false);
  EXPECT_EQ(x.swap_used_bytes, 0u);
  // Only the CFS quota (and a debug build's) warning.
  for (const std::string& w : x.warnings)
    EXPECT_TRUE(w.find("CPU quota") != std::string::npos || w.find("NDEBUG") != std::string::npos) << w;
  nlohmann::json j = run_context_extras_to_json(x);
  EXPECT_TRUE(j["cpu_frequency"]["driver"].is_null());
  EXPECT_EQ(j["cpu_frequency"]["governors"], nlohmann::json::object());
}

TEST(SysmetricsRunContext, ReadsThisMachine) {
  RunContextExtras x = collect_run_context_extras();
  EXPECT_NE(x.cgroup.version, 0) << x.cgroup.detail;
  EXPECT_TRUE(x.swap_used_bytes.has_value());
  nlohmann::json j = run_context_extras_to_json(x);
  EXPECT_TRUE(j.contains("warnings"));
  EXPECT_TRUE(j["kubelet"]["status"].is_string());
}
