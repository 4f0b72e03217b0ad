// `placebench plan` and `verify` end to end on this (one-node) machine and on saved topologies.
// Multi-node verification runs in the QEMU guest (tests/numa_vm).
#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

TEST(PlanCli, Dgx2JsonForGpu3) {
  std::string path = own_topology("nvidiaDGX2.xml");
  auto r = run_command({placebench_binary(), "plan", "--topology", path, "--gpu", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["numa_node_of_device"], 0);
  ASSERT_EQ(j["arms"].size(), 5u);
  EXPECT_EQ(j["arms"][0]["arm"], "local");
  EXPECT_EQ(j["arms"][0]["mem_nodes"], json::array({0}));
  EXPECT_EQ(j["arms"][1]["arm"], "remote");
  EXPECT_EQ(j["arms"][1]["mem_nodes"], json::array({1}));
  EXPECT_EQ(j["arms"][1]["cpus"], "24");
}

TEST(PlanCli, OwnFixtureWithWorkers) {
  auto r = run_command({placebench_binary(), "plan", "--topology", own_topology("2s2n-4gpu.xml"), "--gpu", "1",
                        "--arms", "local,cpu-local-mem-remote", "--workers", "2", "--cpus-per-worker", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["arms"][0]["cpus"], "0-3");
  EXPECT_EQ(j["arms"][0]["workers"][1]["cpus"], "2-3");
  EXPECT_EQ(j["arms"][1]["mem_nodes"], json::array({1}));
}

TEST(PlanCli, BadInputExitsTwoWithOneLine) {
  std::vector<std::vector<std::string>> cases = {
      {"plan", "--topology", own_topology("1n-cpu.xml")},  // remote on one node
      {"plan", "--topology", own_topology("2s2n-4gpu.xml"), "--arms", "local,sideways"},
      {"plan", "--topology", own_topology("2s2n-4gpu.xml"), "--gpu", "9"},
      {"plan", "--topology", own_topology("2s2n-4gpu.xml"), "--gpu", "0", "--device-numa", "1"},
      {"plan", "--topology", own_topology("2s2n-4gpu.xml"), "--cpus-per-worker", "0"},
      {"verify", "--arm", "local", "--bytes", "12Q"},
      {"verify", "--arm", "nearby"},
      {"verify"},
  };
  for (auto args : cases) {
    args.insert(args.begin(), placebench_binary());
    auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(VerifyCli, LocalAndUnpinnedVerifyOnThisMachine) {
  for (const char* arm : {"local", "unpinned"}) {
    auto r = run_command({placebench_binary(), "verify", "--arm", arm, "--bytes", "4M", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    json j = json::parse(r.out);
    EXPECT_EQ(j["status"], "verified");
    std::size_t pages = 0;
    for (auto& [node, count] : j["pages"].items()) pages += count.get<std::size_t>();
    EXPECT_EQ(pages, (4u << 20) / static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  }
}

TEST(VerifyCli, DegenerateRemoteIsMarked) {
  auto refused = run_command({placebench_binary(), "verify", "--arm", "remote", "--bytes", "4M"});
  auto nodes = run_command({placebench_binary(), "topo", "--json"});
  if (json::parse(nodes.out)["numa_nodes"].size() > 1) GTEST_SKIP() << "this machine has several NUMA nodes";
  EXPECT_EQ(refused.exit_code, 2);
  auto r = run_command({placebench_binary(), "verify", "--arm", "remote", "--bytes", "4M", "--allow-degenerate", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["degenerate"], true);
}
