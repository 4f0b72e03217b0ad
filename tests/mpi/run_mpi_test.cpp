// `mpirun -np N placebench run` with a collective class: every rank follows rank 0's schedule, rank 0
// alone writes the run directory, each trial keeps the slowest rank's time of every iteration.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mpi_support.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {
std::string config() { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/collective-tiny.yaml"; }
}  // namespace

TEST(RunMpi, CollectiveClassTwoRanks) {
  std::string out = ::testing::TempDir() + "/pb-run-mpi";
  std::filesystem::remove_all(out);
  MpiRun run = run_mpi(2, {"run", "--config", config(), "--out", out}, 120);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  EXPECT_EQ(count_lines(run.result.out, "Class allreduce-64k"), 1);  // rank 0 alone prints
  std::ifstream in(out + "/trials.jsonl");
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    json t = json::parse(line);
    EXPECT_EQ(t["backend"], "mpi");
    EXPECT_EQ(t["step_ns"].size(), 20u);
    EXPECT_EQ(t["summary"]["nranks"], 2);
    EXPECT_EQ(t["summary"]["placement_ranks"].size(), 2u);
    EXPECT_EQ(t["summary"]["size"], 65536);
    for (const auto& s : t["step_ns"]) EXPECT_GT(s.get<long long>(), 0);
  }
  EXPECT_EQ(lines, 6);  // 3 rounds x 2 arms, written once
  std::ifstream run_json(out + "/run.json");
  EXPECT_EQ(json::parse(run_json)["mpi"]["ranks"], 2);
}

TEST(RunMpi, CollectiveClassWithoutMpirunIsRefused) {
  auto r = run_command({placebench_binary(), "run", "--config", config(), "--out", ::testing::TempDir() + "/pb-run-nompi"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("collective workloads run under mpirun"), std::string::npos) << r.err;
}
