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

namespace {
// A run long enough to interrupt: 40 rounds x 2 arms of a 4 KiB allreduce, 400 steps each.
std::string long_config(const std::string& name) {
  std::string path = ::testing::TempDir() + "/pb-run-mpi-" + name + ".yaml";
  std::ofstream(path) << "experiment:\n  seed: 5\n  rounds: {min: 40, max: 40}\n  warmup_steps: 2\n  steps: 400\n"
                         "  output: " << ::testing::TempDir() << "\nclasses:\n  - name: allreduce-4k\n"
                         "    workload: {type: collective, backend: mpi, op: allreduce, dtype: float32, bytes: 4K}\n"
                         "    arms: {baseline: local, compare: [unpinned]}\n    allow_degenerate: true\n";
  return path;
}

// The complete lines of trials.jsonl once it has at least `n` of them (or the job ended first).
std::vector<std::string> wait_for_trials(const std::string& out, std::size_t n, const BackgroundMpiRun& job) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<std::string> lines;
  while (std::chrono::steady_clock::now() < deadline && !job.done()) {
    std::ifstream in(out + "/trials.jsonl");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    lines.clear();
    for (std::size_t start = 0, nl; (nl = all.find('\n', start)) != std::string::npos; start = nl + 1)
      lines.push_back(all.substr(start, nl - start));
    if (lines.size() >= n) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return lines;
}

pid_t mpirun_pid() {
  std::string exe = PLACEBENCH_MPIEXEC;
  std::vector<pid_t> pids = child_pids_named(exe.substr(exe.rfind('/') + 1).substr(0, 15));
  return pids.size() == 1 ? pids[0] : 0;
}

struct Interrupted {
  MpiRun run;
  std::vector<std::string> before, after;  // trials.jsonl when the signal was sent, and at the end
};

// A long run on 2 ranks, interrupted with `signal` to mpirun once two trials are written.
Interrupted interrupt_after_two_trials(const std::string& name, int signal) {
  std::string out = ::testing::TempDir() + "/pb-run-mpi-" + name;
  std::filesystem::remove_all(out);
  BackgroundMpiRun job(2, {"run", "--config", long_config(name), "--out", out}, 120);
  Interrupted r;
  r.before = wait_for_trials(out, 2, job);
  pid_t pid = mpirun_pid();
  EXPECT_GT(pid, 0);
  EXPECT_GE(r.before.size(), 2u);
  if (pid > 0) kill(pid, signal);
  r.run = job.wait();
  r.after = lines_of(out + "/trials.jsonl");
  EXPECT_GE(r.after.size(), r.before.size());
  for (std::size_t i = 0; i < r.before.size() && i < r.after.size(); ++i) EXPECT_EQ(r.after[i], r.before[i]);
  return r;
}
}  // namespace

TEST(RunMpi, InterruptWithSigusr1StopsAfterTheTrialAndExits130) {
  // Open MPI's mpirun forwards SIGUSR1 as it is: every rank stops at the same trial boundary.
  Interrupted r = interrupt_after_two_trials("usr1", SIGUSR1);
  EXPECT_EQ(r.run.result.exit_code, 130) << r.run.result.err;
  EXPECT_EQ(count_lines(r.run.result.out, "(interrupted: continue with --resume " + ::testing::TempDir() + "/pb-run-mpi-usr1)"), 1)
      << r.run.result.out;
  EXPECT_LT(r.after.size(), 80u);
  for (const auto& l : r.after) EXPECT_TRUE(json::accept(l)) << l;
}

TEST(RunMpi, InterruptWithSigintKeepsTheFinishedTrials) {
  // Open MPI's mpirun turns SIGINT into SIGTERM to every rank, kills them a second later and exits 1
  // itself (docs/collectives.md): what was recorded stays, unchanged, and --resume continues it.
  Interrupted r = interrupt_after_two_trials("int", SIGINT);
  EXPECT_FALSE(r.run.result.timed_out);
  EXPECT_NE(r.run.result.exit_code, 0) << r.run.result.err;
}
