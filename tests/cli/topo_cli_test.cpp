// `placebench topo` end to end: the live machine checked against /proc and /sys, golden table and
// JSON on the project's own fixture, and every bad-input case (one line, exit 2).
#include <gtest/gtest.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "fixtures.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

// Compares with a golden file; PLACEBENCH_UPDATE_GOLDEN=1 rewrites it instead. The evidence stamp (the
// time and version that vary from run to run) is masked as {{ANY}}, in the comparison only.
void expect_golden(const std::string& output, const std::string& name) {
  static const std::regex stamp(R"re(("(generated_at|placebench_version)": )"[^"]*")re");
  const std::string actual = std::regex_replace(output, stamp, "$1\"{{ANY}}\"");
  std::string path = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("PLACEBENCH_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing; run with PLACEBENCH_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, read_text_file(path)) << "golden " << name << " differs; if the change is intended, "
                                     << "rerun with PLACEBENCH_UPDATE_GOLDEN=1 and review the diff";
}

int count_sys_nodes() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/node"))
    if (e.path().filename().string().rfind("node", 0) == 0 && std::isdigit(e.path().filename().string()[4])) ++n;
  return n;
}

}  // namespace

TEST(TopoCli, LiveJsonMatchesThisMachine) {
  auto r = run_command({placebench_binary(), "topo", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["source"], "live");
  for (const char* key : {"packages", "numa_nodes", "distances", "gpus", "nics", "allowed"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(static_cast<int>(j["numa_nodes"].size()), count_sys_nodes());
  EXPECT_EQ(j["pus"].get<long>(), sysconf(_SC_NPROCESSORS_CONF));
  // The allowed sets are this process's (the child inherits ours).
  auto allowed = placebench::hostpipe::read_allowed_sets();
  EXPECT_EQ(j["allowed"]["cpus"], placebench::hostpipe::format_cpulist(allowed.cpus));
  EXPECT_EQ(j["allowed"]["mems"], placebench::hostpipe::format_cpulist(allowed.mems));
  for (const auto& node : j["numa_nodes"]) {
    std::string sys_cpus = read_text_file("/sys/devices/system/node/node" + std::to_string(node["os_index"].get<int>()) + "/cpulist");
    EXPECT_EQ(placebench::hostpipe::parse_cpulist(node["cpus"].get<std::string>()),
              placebench::hostpipe::parse_cpulist(sys_cpus));
    EXPECT_GT(node["memory_bytes"].get<std::uint64_t>(), 0u);
  }
}

TEST(TopoCli, LiveTableRuns) {
  auto r = run_command({placebench_binary(), "topo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Topology: live"), std::string::npos);
  EXPECT_NE(r.out.find("Allowed for this process"), std::string::npos);
}

TEST(TopoCli, GoldenTableAndJsonOnOwnFixture) {
  std::string fixture = "tests/fixtures/topologies/2s2n-4gpu.xml";  // relative: the golden names it
  auto table = run_command({placebench_binary(), "topo", "--topology", fixture});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  expect_golden(table.out, "topo-2s2n-4gpu.txt");
  auto js = run_command({placebench_binary(), "topo", "--topology", fixture, "--json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  expect_golden(js.out, "topo-2s2n-4gpu.json");
}

TEST(TopoCli, ExportRoundTripsThroughTopology) {
  std::string path = ::testing::TempDir() + "/live.xml";
  std::remove(path.c_str());  // an earlier run's file is not replaced (the output rule)
  auto exp = run_command({placebench_binary(), "topo", "--export", path, "--json"});
  ASSERT_EQ(exp.exit_code, 0) << exp.err;
  auto back = run_command({placebench_binary(), "topo", "--topology", path, "--json"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  json a = json::parse(exp.out), b = json::parse(back.out);
  EXPECT_EQ(b["source"], path);
  EXPECT_EQ(a["numa_nodes"], b["numa_nodes"]);
  EXPECT_EQ(a["pus"], b["pus"]);
  EXPECT_EQ(a["nics"], b["nics"]);
}

TEST(TopoCli, BadInputIsOneLineAndExitTwo) {
  std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/notxml.xml") << "just text\n";
  std::ofstream(dir + "/v3.xml") << "<?xml version=\"1.0\"?>\n<topology version=\"3.0\"></topology>\n";
  std::filesystem::create_directories(dir + "/adir.xml");
  struct Case {
    std::vector<std::string> args;
    std::string must_contain;
  };
  std::vector<Case> cases = {
      {{"topo", "--topology", dir + "/missing.xml"}, dir + "/missing.xml"},
      {{"topo", "--topology", dir + "/notxml.xml"}, "not an hwloc topology XML"},
      {{"topo", "--topology", dir + "/v3.xml"}, "version 3.0"},
      {{"topo", "--topology", dir + "/adir.xml"}, dir + "/adir.xml: is a directory"},
      {{"plan", "--topology", dir + "/notxml.xml"}, "not an hwloc topology XML"},
      {{"topo", "--bogus"}, "--bogus"},
      {{"topo", "--pci-gpus", "maybe"}, "--pci-gpus"},
      {{"topo", "--topology", "x.xml", "--export", "y.xml"}, "--export"},
      {{"nosuchcommand"}, "nosuchcommand"},
      {{"topo", "--export", "/nonexistent-dir/x.xml"}, "--export /nonexistent-dir/x.xml: /nonexistent-dir is not a writable directory"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {placebench_binary()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(c.must_contain), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// Issue 15: every bad topology fixture (a loader crash, a 20-digit version, a duplicate NUMA os_index, a
// set that is no bitmap, negative and non-numeric sizes, a truncated file) is exit 2 and one line naming
// the file, for `topo` and for `plan`.
TEST(TopoCli, BadTopologyFixturesAreOneLineAndExitTwoForTopoAndPlan) {
  std::string dir = own_topology("bad");
  int fixtures = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".xml") continue;
    std::string path = e.path().string();
    ++fixtures;
    for (const char* command : {"topo", "plan"}) {
      auto r = run_command({placebench_binary(), command, "--topology", path});
      EXPECT_EQ(r.exit_code, 2) << command << " " << path << ": " << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_EQ(r.err.rfind("placebench: " + path + ":", 0), 0u) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  EXPECT_GE(fixtures, 8);
}

// The crash reproducer of issue 15: hwloc 2.9's loader (and lstopo) SEGV on it.
TEST(TopoCli, MissingCompleteCpusetIsRefusedNotACrash) {
  std::string path = own_topology("bad/no-complete-cpuset.xml");
  auto r = run_command({placebench_binary(), "topo", "--topology", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "placebench: " + path + ":9: <object type=\"Core\"> has no complete_cpuset attribute (hwloc 2 needs "
                   "cpuset, complete_cpuset, nodeset and complete_nodeset on every normal and memory object; without them "
                   "its loader crashes); correct it, or export the topology again with `placebench topo --export FILE.xml` "
                   "or hwloc 2's `lstopo FILE.xml`\n");
}

TEST(TopoCli, VersionNamesEveryLibrary) {
  auto r = run_command({placebench_binary(), "--version"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* lib : {"placebench", "hwloc", "MPI", "CUDA runtime", "CUDA driver", "NCCL"})
    EXPECT_NE(r.out.find(lib), std::string::npos) << lib;
}
