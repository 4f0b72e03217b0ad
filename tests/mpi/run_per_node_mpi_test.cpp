// `mpirun ... placebench run --per-node`: each node writes <out>/<node>/<run>, one writer per node however
// many ranks it has; node-local classes are measured on every node, collective classes across all ranks
// and recorded in every node's directory. Several "hosts" on this one machine: each app context of an
// MPMD mpirun gets its own PLACEBENCH_HOST_NAME (it names directories only).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "mpi_support.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
std::string fixture(const std::string& name) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/" + name; }

// mpirun -np N1 -x PLACEBENCH_HOST_NAME=H1 placebench ARGS : -np N2 -x ... : ...
MpiRun run_on_hosts(const std::vector<std::pair<std::string, int>>& hosts, const std::vector<std::string>& args) {
  std::vector<std::string> argv{PLACEBENCH_MPIEXEC, "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"};
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (i > 0) argv.push_back(":");
    for (const auto& a : {std::string("-np"), std::to_string(hosts[i].second), std::string("-x"),
                          "PLACEBENCH_HOST_NAME=" + hosts[i].first, placebench_binary()})
      argv.push_back(a);
    argv.insert(argv.end(), args.begin(), args.end());
  }
  auto t0 = std::chrono::steady_clock::now();
  MpiRun run{run_command(argv, 120, {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}), 0};
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

std::vector<json> trials_of(const fs::path& run_dir) {
  std::ifstream in(run_dir / "trials.jsonl");
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

// <out>/<node>/<run>: node name -> its run directories.
std::map<std::string, std::vector<fs::path>> node_runs(const std::string& out) {
  std::map<std::string, std::vector<fs::path>> nodes;
  for (const auto& n : fs::directory_iterator(out))
    for (const auto& r : fs::directory_iterator(n.path())) nodes[n.path().filename().string()].push_back(r.path());
  return nodes;
}

json run_json(const fs::path& dir) {
  std::ifstream in(dir / "run.json");
  return json::parse(in);
}
}  // namespace

TEST(RunPerNodeMpi, TwoHostsEachWriteTheirRunAndShareTheCollective) {
  std::string out = ::testing::TempDir() + "/pb-per-node-2";
  fs::remove_all(out);
  MpiRun run = run_on_hosts({{"node-a", 1}, {"node-b", 1}}, {"run", "--per-node", "--config", fixture("mixed-mpi.yaml"), "--out", out});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  auto nodes = node_runs(out);
  ASSERT_EQ(nodes.size(), 2u);
  std::map<std::string, std::vector<json>> collective;
  for (const auto& [node, runs] : nodes) {
    ASSERT_EQ(runs.size(), 1u) << node;
    EXPECT_EQ(runs[0].filename().string().substr(16), node);  // <YYYYmmdd-HHMMSS>-<node>
    json ctx = run_json(runs[0]);
    EXPECT_EQ(ctx["per_node"]["node"], node);
    EXPECT_EQ(ctx["per_node"]["nodes"], 2);
    EXPECT_EQ(ctx["mpi"]["ranks"], 2);
    int staging = 0;
    for (const auto& t : trials_of(runs[0])) {
      if (t["class"] == "staging-64k") {
        ++staging;
        EXPECT_FALSE(t["summary"].contains("nranks"));
      } else {
        EXPECT_EQ(t["summary"]["nranks"], 2);  // across both nodes' ranks
        collective[node].push_back(t);
      }
    }
    EXPECT_EQ(staging, 4) << node;  // 2 rounds x 2 arms, measured on this node
    EXPECT_TRUE(fs::exists(runs[0] / "summary.json")) << node;
    EXPECT_EQ(count_lines(run.result.out, runs[0].string()), 1) << run.result.out;  // rank 0 lists every node's run
  }
  ASSERT_EQ(collective["node-a"].size(), 4u);
  EXPECT_EQ(collective["node-a"], collective["node-b"]);  // one job-wide measurement, in both directories
  // Each node's directory is a whole run: `compare` reads it.
  EXPECT_EQ(run_command({placebench_binary(), "compare", nodes["node-b"][0].string()}).exit_code, 0);
}

TEST(RunPerNodeMpi, ThreeRanksOnTwoHostsGiveOneWriterPerHost) {
  std::string out = ::testing::TempDir() + "/pb-per-node-3";
  fs::remove_all(out);
  MpiRun run = run_on_hosts({{"node-a", 2}, {"node-b", 1}}, {"run", "--per-node", "--config", fixture("per-node-local.yaml"), "--out", out});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  auto nodes = node_runs(out);
  ASSERT_EQ(nodes.size(), 2u);
  for (const auto& [node, runs] : nodes) {
    ASSERT_EQ(runs.size(), 1u) << node << ": more than one writer";
    EXPECT_EQ(trials_of(runs[0]).size(), 4u) << node;  // each slot once on each node, not once per rank
    EXPECT_EQ(run_json(runs[0])["per_node"]["ranks_on_node"], node == "node-a" ? 2 : 1);
  }
}

TEST(RunPerNodeMpi, ThreeHostsThreeRuns) {
  std::string out = ::testing::TempDir() + "/pb-per-node-3h";
  fs::remove_all(out);
  MpiRun run = run_on_hosts({{"h1", 1}, {"h2", 1}, {"h3", 1}}, {"run", "--per-node", "--config", fixture("per-node-local.yaml"), "--out", out});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  auto nodes = node_runs(out);
  ASSERT_EQ(nodes.size(), 3u);
  for (const auto& [node, runs] : nodes) {
    ASSERT_EQ(runs.size(), 1u) << node;
    EXPECT_EQ(trials_of(runs[0]).size(), 4u) << node;
    EXPECT_EQ(run_json(runs[0])["per_node"]["nodes"], 3);
  }
  EXPECT_EQ(count_lines(run.result.out, "Results (3 nodes"), 1) << run.result.out;
}

TEST(RunPerNodeMpi, ANodeWithAnotherExperimentIsRefusedOnEveryRank) {
  std::string out = ::testing::TempDir() + "/pb-per-node-other";
  fs::remove_all(out);
  std::vector<std::string> argv{PLACEBENCH_MPIEXEC, "--oversubscribe", "--bind-to", "none",
                                "-np", "1", "-x", "PLACEBENCH_HOST_NAME=a", placebench_binary(), "run", "--per-node",
                                "--config", fixture("per-node-local.yaml"), "--out", out, ":",
                                "-np", "1", "-x", "PLACEBENCH_HOST_NAME=b", placebench_binary(), "run", "--per-node",
                                "--config", fixture("tiny.yaml"), "--out", out};
  auto r = run_command(argv, 60, {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err, "rank 1 runs another experiment than rank 0"), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));  // refused before anything is written
}
