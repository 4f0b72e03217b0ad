// `placebench run --per-node` without mpirun (one process: one node, e.g. srun without MPI): the run goes
// to <out>/<node>/<timestamp>-<node>/; PLACEBENCH_HOST_NAME names the node and must be a plain name;
// --resume is refused with it (a per-node run is resumed node by node, without --per-node).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_command.h"

using namespace placebench::testing;
namespace fs = std::filesystem;

namespace {
std::string tiny() { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/tiny.yaml"; }
std::string fresh(const std::string& name) {
  std::string d = ::testing::TempDir() + "/pb-per-node-cli-" + name;
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST(RunPerNodeCli, OneProcessWritesOutNodeRun) {
  std::string out = fresh("one");
  auto r = run_command({placebench_binary(), "run", "--per-node", "--config", tiny(), "--rounds", "3:3", "--out", out}, 60,
                       {"PLACEBENCH_HOST_NAME=gpu-017"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(fs::path(out) / "gpu-017")) runs.push_back(e.path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(runs[0].filename().string().find("-gpu-017"), std::string::npos);
  std::ifstream in(runs[0] / "run.json");
  nlohmann::json ctx = nlohmann::json::parse(in);
  EXPECT_EQ(ctx["per_node"]["node"], "gpu-017");
  EXPECT_EQ(ctx["per_node"]["nodes"], 1);
  EXPECT_TRUE(fs::exists(runs[0] / "summary.json"));
  EXPECT_NE(r.out.find("Results (1 node):\n  " + runs[0].string() + "\n"), std::string::npos) << r.out;
  // A second per-node run into the same --out adds a run beside the first, never over it.
  auto again = run_command({placebench_binary(), "run", "--per-node", "--config", tiny(), "--rounds", "3:3", "--out", out}, 60,
                           {"PLACEBENCH_HOST_NAME=gpu-017"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  int count = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(fs::path(out) / "gpu-017")) ++count;
  EXPECT_EQ(count, 2);
}

// In a pod the host name is the pod's: the recipes write spec.nodeName into a file that
// PLACEBENCH_HOST_NAME_FILE names (ranks started over ssh do not inherit the pod's environment), and the
// node's name is then the run directory's and the run's host (fleet ranks nodes, not pods).
TEST(RunPerNodeCli, TheNodeNameFromAFileNamesTheRunAndItsHost) {
  std::string out = fresh("file");
  std::string file = ::testing::TempDir() + "/pb-per-node-cli-host-name";
  std::ofstream(file) << "gpu-node-9\n";
  auto r = run_command({placebench_binary(), "run", "--per-node", "--config", tiny(), "--rounds", "3:3", "--out", out}, 60,
                       {"PLACEBENCH_HOST_NAME_FILE=" + file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(fs::path(out) / "gpu-node-9")) runs.push_back(e.path());
  ASSERT_EQ(runs.size(), 1u);
  std::ifstream in(runs[0] / "run.json");
  nlohmann::json ctx = nlohmann::json::parse(in);
  EXPECT_EQ(ctx["host"], "gpu-node-9");
  EXPECT_EQ(ctx["per_node"]["node"], "gpu-node-9");
  fs::remove(file);
  std::string out2 = fresh("file-missing");
  auto missing = run_command({placebench_binary(), "run", "--per-node", "--config", tiny(), "--out", out2}, 30,
                             {"PLACEBENCH_HOST_NAME_FILE=" + file});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("placebench: PLACEBENCH_HOST_NAME_FILE: cannot read a node name from " + file), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(out2));
}

TEST(RunPerNodeCli, NodeNameMustBePlain) {
  for (std::string bad : {"../escape", "a/b", "", ".."}) {
    std::string out = fresh("bad");
    auto r = run_command({placebench_binary(), "run", "--per-node", "--config", tiny(), "--out", out}, 30,
                         {"PLACEBENCH_HOST_NAME=" + bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("placebench: PLACEBENCH_HOST_NAME: '" + bad + "' is not a plain node name"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << bad;
  }
}

TEST(RunPerNodeCli, ResumeIsRefused) {
  auto r = run_command({placebench_binary(), "run", "--per-node", "--resume", fresh("resume")}, 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--per-node with --resume"), std::string::npos) << r.err;
}
