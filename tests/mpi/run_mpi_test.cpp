// `mpirun -np N placebench run` with a collective class: every rank follows rank 0's schedule, rank 0
// alone writes the run directory, each trial keeps the slowest rank's time of every iteration; a
// node-local class beside it is measured on rank 0 alone; --resume continues on every rank.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "mpi_support.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {
std::string fixture(const std::string& name) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/" + name; }
std::string config() { return fixture("collective-tiny.yaml"); }

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::set<std::tuple<std::string, int, std::string>> slots_of(const std::vector<std::string>& lines) {
  std::set<std::tuple<std::string, int, std::string>> out;
  for (const auto& l : lines) {
    json t = json::parse(l);
    out.insert({t["class"].get<std::string>(), t["round"].get<int>(), t["arm"].get<std::string>()});
  }
  return out;
}
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

TEST(RunMpi, NodeLocalClassIsMeasuredOnceBesideACollectiveClass) {
  std::string out = ::testing::TempDir() + "/pb-run-mpi-mixed";
  std::filesystem::remove_all(out);
  MpiRun run = run_mpi(2, {"run", "--config", fixture("mixed-mpi.yaml"), "--out", out}, 120);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  int staging = 0, collective = 0;
  for (const auto& line : lines_of(out + "/trials.jsonl")) {
    json t = json::parse(line);
    if (t["class"] == "staging-64k") {
      ++staging;
      EXPECT_EQ(t["backend"], "host");
      EXPECT_EQ(t["step_ns"].size(), 10u);
      EXPECT_FALSE(t["summary"].contains("nranks"));
    } else {
      ++collective;
      EXPECT_EQ(t["summary"]["nranks"], 2);
    }
  }
  EXPECT_EQ(staging, 4);  // 2 rounds x 2 arms, once (rank 0's), not once per rank
  EXPECT_EQ(collective, 4);
}

TEST(RunMpi, ResumeContinuesTheScheduleOnEveryRank) {
  std::string out = ::testing::TempDir() + "/pb-run-mpi-resume";
  std::filesystem::remove_all(out);
  MpiRun first = run_mpi(2, {"run", "--config", fixture("mixed-mpi.yaml"), "--out", out}, 120);
  ASSERT_EQ(first.result.exit_code, 0) << first.result.err;
  std::vector<std::string> full = lines_of(out + "/trials.jsonl");
  ASSERT_EQ(full.size(), 8u);
  {  // as if killed after three trials: the rest of the file and the summary never written
    std::ofstream cut(out + "/trials.jsonl", std::ios::trunc);
    for (int i = 0; i < 3; ++i) cut << full[static_cast<std::size_t>(i)] << "\n";
  }
  std::filesystem::remove(out + "/summary.json");
  MpiRun resumed = run_mpi(2, {"run", "--resume", out}, 120);
  ASSERT_EQ(resumed.result.exit_code, 0) << resumed.result.err << resumed.result.out;
  std::vector<std::string> after = lines_of(out + "/trials.jsonl");
  ASSERT_EQ(after.size(), 8u);  // every slot exactly once
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(after[i], full[i]);
  EXPECT_EQ(slots_of(after), slots_of(full));  // the same schedule
  for (std::size_t i = 3; i < after.size(); ++i) {
    json t = json::parse(after[i]);
    if (t["class"] == "allreduce-4k") EXPECT_EQ(t["summary"]["nranks"], 2);  // both ranks took part
  }

  MpiRun other_size = run_mpi(3, {"run", "--resume", out}, 60);
  EXPECT_EQ(other_size.result.exit_code, 2) << other_size.result.err;
  EXPECT_EQ(count_lines(other_size.result.err, "made with 2 rank(s), this job has 3"), 1) << other_size.result.err;

  MpiRun missing = run_mpi(2, {"run", "--resume", out + "-missing"}, 60);
  EXPECT_EQ(missing.result.exit_code, 2) << missing.result.err;
  EXPECT_EQ(count_lines(missing.result.err, "placebench:"), 1) << missing.result.err;
}
