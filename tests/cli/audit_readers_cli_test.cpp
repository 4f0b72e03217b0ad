// What fuzzing found in the readers of `placebench audit` and `topo --expect`, end to end through the binary
// (tests/fuzz/regressions/{kubelet_state,downward_api,topo_expect}): a damaged kubelet state file is one
// warning line naming the file and the place while the audit still reports; the downward API's Go escapes
// are decoded; a topo --json file with a value outside its field's type is exit 2 with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

const std::string kAudit = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit";
const std::string kRegressions = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fuzz/regressions";

CommandResult audit_with(const std::vector<std::string>& files) {
  std::vector<std::string> argv = {placebench_binary(), "audit", "--json", "--proc-root", kAudit + "/proc", "--topology",
                                   own_topology("2s2n-4gpu.xml"), "--pid", "4242", "--device-numa", "1"};
  argv.insert(argv.end(), files.begin(), files.end());
  return run_command(argv);
}

TEST(AuditReadersCli, ACpuRangeToIntMaxIsOneWarningAndTheAuditReports) {
  // Before: 2^31 ids expanded (8 GiB) and a signed overflow; the audit never finished.
  std::string file = kRegressions + "/kubelet_state/hang-cpulist-range-to-int-max.json";
  CommandResult r = audit_with({"--cpu-manager-state", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "placebench: warning: " + file + ": defaultCpuSet: CPU id 2147483647 is above 16383; no machine has "
                   "that many CPUs; the kubelet rewrites it at start; compare with /var/lib/kubelet/cpu_manager_state\n");
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["managers"]["cpu_manager"]["file"]["status"], "malformed");
}

TEST(AuditReadersCli, ANumberBeyondADoubleIsAWarningWithItsPlace) {
  std::string file = kRegressions + "/kubelet_state/raw-json-out-of-range-number-1e999.json";
  CommandResult r = audit_with({"--cpu-manager-state", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(file + ": not the JSON the kubelet writes: number overflow parsing '1e999'; "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(AuditReadersCli, GoEscapesInTheDownwardApiAreDecoded) {
  std::string file = ::testing::TempDir() + "/audit_readers_annotations";
  write_text_file(file, "hami.io/vgpu-node=\"gpu-node-\\u00e97\"\nhami.io/numa-alignment=\"none\"\n");
  CommandResult r = audit_with({"--annotations", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["managers"]["hami"]["node"], "gpu-node-\xC3\xA9" "7");
  CommandResult bad = audit_with({"--annotations", kRegressions + "/downward_api/raw-stoi-message-bad-hex-escape.txt"});
  EXPECT_NE(bad.err.find("raw-stoi-message-bad-hex-escape.txt: line 1: \\x needs 2 hex digits; "), std::string::npos) << bad.err;
}

TEST(AuditReadersCli, TopoExpectWithAValueOutsideItsTypeIsExitTwo) {
  // Before: get<int>(1e20), undefined behaviour (UBSan), and a 3-row distance matrix for 2 nodes accepted.
  for (const char* name : {"ub-float-cast-numa-node-1e20.json", "refused-distances-more-rows-than-nodes.json"}) {
    std::string file = kRegressions + "/topo_expect/" + name;
    CommandResult r = run_command({placebench_binary(), "topo", "--topology", own_topology("2s2n-4gpu.xml"), "--expect", file});
    EXPECT_EQ(r.exit_code, 2) << name << r.err;
    EXPECT_EQ(r.err.rfind("placebench: " + file + ": ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("; give a saved hwloc XML"), std::string::npos) << r.err;
  }
}

}  // namespace
