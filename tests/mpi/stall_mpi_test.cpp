// A frozen rank (kill -STOP) under mpirun: every other rank's wait runs out after the stall timeout,
// the job is aborted as for a dead peer, and mpirun ends within the timeout plus a margin with a
// non-zero status and the stalled rank's message. The rank to freeze writes its pid through the test
// hook PLACEBENCH_TEST_PID_FILE; whatever is left of it is continued and killed at the end.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

#include "mpi_support.h"

using namespace placebench::testing;

namespace {

constexpr double kMarginS = 20;  // after the stall timeout: the watchdog's poll, MPI_Abort, mpirun's kill

struct FrozenJob {
  MpiRun run;
  double after_stop_s = 0;  // from SIGSTOP to mpirun's end
  bool stopped = false;
};

// Freezes `pid` (kill -STOP) once `ready()` holds (at most 30 s), then waits for the job's end; the
// process is continued and killed after.
FrozenJob freeze_when(BackgroundMpiRun& job, pid_t pid, const std::function<bool()>& ready) {
  FrozenJob frozen;
  if (pid > 0) {
    for (int i = 0; i < 1200 && !ready() && !job.done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    frozen.stopped = kill(pid, SIGSTOP) == 0;
  }
  auto stopped_at = std::chrono::steady_clock::now();
  frozen.run = job.wait();
  frozen.after_stop_s = job.seconds_after(stopped_at);
  release_and_kill(pid);
  return frozen;
}

// Starts the job, freezes rank `frozen` once it wrote its pid (after `settle_s`), waits for the job's end.
FrozenJob freeze_rank(const std::string& name, int ranks, const std::vector<std::string>& args, std::vector<std::string> env,
                      double settle_s = 0.3, int frozen = 1) {
  std::string pid_file = ::testing::TempDir() + "/pb-stall-" + name + ".pid";
  std::remove(pid_file.c_str());
  env.push_back("PLACEBENCH_TEST_PID_FILE=" + pid_file);
  env.push_back("PLACEBENCH_TEST_PID_RANK=" + std::to_string(frozen));
  BackgroundMpiRun job(ranks, args, 120, env);
  pid_t pid = wait_for_pid_file(pid_file, 60, job);
  if (pid > 0) std::this_thread::sleep_for(std::chrono::duration<double>(settle_s));
  return freeze_when(job, pid, [] { return true; });
}

std::string config_file(const std::string& name, int rounds, int steps) {
  std::string path = ::testing::TempDir() + "/pb-stall-" + name + ".yaml";
  std::ofstream(path) << "experiment:\n  seed: 5\n  rounds: {min: " << rounds << ", max: " << rounds
                      << "}\n  warmup_steps: 2\n  steps: " << steps << "\n  output: " << ::testing::TempDir()
                      << "\nclasses:\n  - name: allreduce-4k\n"
                         "    workload: {type: collective, backend: mpi, op: allreduce, dtype: float32, bytes: 4K}\n"
                         "    arms: {baseline: local, compare: [unpinned]}\n    allow_degenerate: true\n";
  return path;
}

// The job ended by the 2 s stall timeout, within the margin, non-zero, with `message` on stderr. Where
// the frozen rank stops the others inside a timed chunk of calls, the allowance adds the chunk's calls
// (64 x 1 ms at 8 B: "within 2.06 s"); elsewhere it is one call ("within 2 s"). Both read as "2 s".
void expect_ended_by_the_watchdog(const FrozenJob& job, const std::string& message) {
  ASSERT_TRUE(job.stopped) << job.run.result.err;
  EXPECT_FALSE(job.run.result.timed_out);
  EXPECT_NE(job.run.result.exit_code, 0);
  EXPECT_LT(job.after_stop_s, 2 + kMarginS);
  std::string err = std::regex_replace(job.run.result.err, std::regex("within 2\\.0[0-9]* s;"), "within 2 s;");
  EXPECT_NE(err.find(message), std::string::npos) << job.run.result.err;
}

}  // namespace

TEST(StallMpi, FrozenRankEndsTheCollectiveJobAfterTheStallTimeout) {
  // A million 8-byte allreduces: far longer than the test waits, so rank 1 is frozen mid-work.
  FrozenJob job = freeze_rank("collective", 2,
                                  {"collective", "--backend", "mpi", "--arm", "unpinned", "--sizes", "8", "--iters", "1000000",
                                   "--warmup", "0", "--mode", "out-of-place", "--no-check", "--stall-timeout", "2s"},
                                  {});
  expect_ended_by_the_watchdog(job, "placebench: error: rank 0: collective allreduce 8 B (float, out-of-place) did not finish "
                                    "within 2 s; a peer is stalled or frozen");
}

TEST(StallMpi, FrozenRankEndsARunWithACollectiveClassAfterTheStallTimeout) {
  std::string out = ::testing::TempDir() + "/pb-stall-run";
  std::filesystem::remove_all(out);
  FrozenJob job = freeze_rank("run", 2, {"run", "--config", config_file("run", 50, 20000), "--out", out},
                                  {"PLACEBENCH_STALL_TIMEOUT=2s"});
  expect_ended_by_the_watchdog(job, "did not finish within 2 s; a peer is stalled or frozen");
  EXPECT_NE(job.run.result.err.find("placebench: error: rank 0: "), std::string::npos) << job.run.result.err;
}

TEST(StallMpi, FrozenRankZeroIsReportedByTheOtherRankWhoseStderrIsOtherwiseQuiet) {
  std::string out = ::testing::TempDir() + "/pb-stall-run0";
  std::filesystem::remove_all(out);
  FrozenJob job = freeze_rank("run0", 2, {"run", "--config", config_file("run0", 50, 20000), "--out", out},
                              {"PLACEBENCH_STALL_TIMEOUT=2s"}, 0.3, 0);
  expect_ended_by_the_watchdog(job, "did not finish within 2 s; a peer is stalled or frozen");
  EXPECT_NE(job.run.result.err.find("placebench: error: rank 1: "), std::string::npos) << job.run.result.err;
}

TEST(StallMpi, FrozenRankEndsTheGangSetupAfterTheStallTimeout) {
  // Rank 1 stops itself as its gang starts, before the clock sync: rank 0 waits for its ping (an
  // MPI_Recv that once waited for ever), and the deadline of the schedule does not cover that wait.
  FrozenJob job = freeze_rank("gang", 2,
                                  {"gang", "--backend", "mpi", "--arm", "unpinned", "--deadline", "30s", "--stall-timeout", "2s"},
                                  {"PLACEBENCH_TEST_STOP_SELF=1"}, 0.0);
  expect_ended_by_the_watchdog(job, "placebench: error: rank 0: clock sync with rank 0 (MPI_Send, MPI_Recv) did not finish "
                                    "within 2 s; a peer is stalled or frozen");
}

TEST(StallMpi, BadStallTimeoutExitsTwo) {
  auto big = run_mpi(2, {"collective", "--stall-timeout", "2h"}, 60);
  EXPECT_EQ(big.result.exit_code, 2) << big.result.err;
  EXPECT_EQ(count_lines(big.result.err, "placebench: --stall-timeout 2h: must be more than 0 and at most 1h"), 1)
      << big.result.err;
  auto env = run_mpi(2, {"run", "--config", config_file("bad-env", 2, 3)}, 60, {"PLACEBENCH_STALL_TIMEOUT=soon"});
  EXPECT_EQ(env.result.exit_code, 2) << env.result.err;
  EXPECT_NE(env.result.err.find("PLACEBENCH_STALL_TIMEOUT: bad duration 'soon'"), std::string::npos) << env.result.err;
}

// The pid of rank `rank` of the job whose ranks carry `marker` in their environment (found through /proc:
// a node-local class starts no collective, so no rank writes the pid file); 0 if none within timeout_s.
pid_t rank_pid_by_environment(const std::string& marker, int rank, double timeout_s, const BackgroundMpiRun& job) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  const std::string want_rank = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  while (std::chrono::steady_clock::now() < deadline && !job.done()) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "environ", std::ios::binary);
      std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      bool ours = false, ranked = false;
      for (std::size_t start = 0, end; start < env.size(); start = end + 1) {
        end = env.find('\0', start);
        if (end == std::string::npos) end = env.size();
        std::string var = env.substr(start, end - start);
        ours = ours || var == marker;
        ranked = ranked || var == want_rank;
      }
      if (ours && ranked) return static_cast<pid_t>(std::stol(name));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

TEST(StallMpi, FrozenRankEndsARunOfNodeLocalClassesAfterTheStallTimeout) {
  // Only rank 0 measures a node-local class while the others wait idle for it; rank 0 then waits for
  // them at the end of the trial for the stall timeout, not for the hour a trial may take.
  std::string config = ::testing::TempDir() + "/pb-stall-node-local.yaml";
  std::ofstream(config) << "experiment:\n  seed: 5\n  rounds: {min: 50, max: 50}\n  warmup_steps: 1\n  steps: 2000\n"
                           "  output: " << ::testing::TempDir() << "\nclasses:\n  - name: h2d\n"
                           "    workload: {type: staging, backend: host, bytes: 1M, copies: 4}\n"
                           "    arms: {baseline: local, compare: [unpinned]}\n    allow_degenerate: true\n";
  std::string out = ::testing::TempDir() + "/pb-stall-node-local";
  std::filesystem::remove_all(out);
  const std::string marker = "PLACEBENCH_TEST_JOB=stall-node-local-" + std::to_string(getpid());
  BackgroundMpiRun job(2, {"run", "--config", config, "--out", out}, 120, {"PLACEBENCH_STALL_TIMEOUT=2s", marker});
  pid_t pid = rank_pid_by_environment(marker, 1, 60, job);
  // Once a trial is under way (trials.jsonl exists), so rank 1 is waiting idle for rank 0.
  FrozenJob frozen = freeze_when(job, pid, [&] { return std::filesystem::exists(out + "/trials.jsonl"); });
  expect_ended_by_the_watchdog(frozen, "a peer is stalled or frozen");
  EXPECT_NE(frozen.run.result.err.find("rank 0: "), std::string::npos) << frozen.run.result.err;
}

namespace {

// `mpirun -np 1 -x PLACEBENCH_HOST_NAME=H1 placebench ARGS : -np 1 -x ... ARGS` (one rank per host name),
// with a 2 s stall timeout and `marker` (NAME=VALUE) in every rank's environment.
MpiRun run_per_node(const std::vector<std::string>& hosts, const std::vector<std::string>& args, const std::string& marker) {
  std::vector<std::string> argv{PLACEBENCH_MPIEXEC, "--oversubscribe", "--bind-to", "none"};
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (i > 0) argv.push_back(":");
    for (const std::string& a : {std::string("-np"), std::string("1"), std::string("-x"), "PLACEBENCH_HOST_NAME=" + hosts[i],
                                 std::string("-x"), marker, std::string("-x"), std::string("PLACEBENCH_STALL_TIMEOUT"),
                                 placebench_binary()})
      argv.push_back(a);
    argv.insert(argv.end(), args.begin(), args.end());
  }
  return {run_command(argv, 120, {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "PLACEBENCH_STALL_TIMEOUT=2s", marker}),
          0};
}

// Lines of every trials.jsonl under `out` (<out>/<node>/<run>/trials.jsonl).
std::size_t recorded_trials(const std::string& out) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(out, ec); !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename() == "trials.jsonl") {
      std::ifstream in(it->path());
      for (std::string line; std::getline(in, line);) ++n;
    }
  return n;
}

std::string node_local_config(const std::string& name) {
  std::string config = ::testing::TempDir() + "/pb-stall-" + name + ".yaml";
  std::ofstream(config) << "experiment:\n  seed: 5\n  rounds: {min: 200, max: 200}\n  warmup_steps: 1\n  steps: 200\n"
                           "  output: " << ::testing::TempDir() << "\nclasses:\n  - name: h2d\n"
                           "    workload: {type: staging, backend: host, bytes: 256K, copies: 2}\n"
                           "    arms: {baseline: local, compare: [unpinned]}\n    allow_degenerate: true\n";
  return config;
}

// Freezes rank 0 of a `run --per-node` of node-local classes on `hosts` once `after_trials` trials are
// recorded; the job must end by the other rank's deadline (the stall timeout plus 4x the trial it knows).
FrozenJob freeze_rank_zero_per_node(const std::string& name, const std::vector<std::string>& hosts, std::size_t after_trials) {
  std::string out = ::testing::TempDir() + "/pb-stall-" + name;
  std::filesystem::remove_all(out);
  const std::string marker = "PLACEBENCH_TEST_JOB=" + name + "-" + std::to_string(getpid());
  const std::vector<std::string> args{"run", "--per-node", "--config", node_local_config(name), "--out", out};
  BackgroundMpiRun job([&] { return run_per_node(hosts, args, marker); });
  // Found through /proc: a node-local class starts no collective, so no rank writes the pid file.
  pid_t pid = rank_pid_by_environment(marker, 0, 60, job);
  return freeze_when(job, pid, [&] { return recorded_trials(out) >= after_trials; });
}

}  // namespace

TEST(StallMpi, FrozenRankZeroEndsAPerNodeRunWithinTheStallTimeout) {
  // Before: rank 1 waited the hour-long trial deadline for rank 0 (kill -STOP), past 200 s with a 10 s
  // stall timeout; a frozen rank 1 was caught at once. Two nodes: rank 1 measures the same trial itself.
  FrozenJob job = freeze_rank_zero_per_node("per-node-two", {"node-a", "node-b"}, 1);
  expect_ended_by_the_watchdog(job, "a peer is stalled or frozen");
  EXPECT_NE(job.run.result.err.find("rank 1: "), std::string::npos) << job.run.result.err;
}

TEST(StallMpi, FrozenRankZeroEndsAPerNodeRunWhoseOtherRankDoesNotMeasure) {
  // One node, two ranks: rank 1 is no writer and measures nothing; after the first trials it waits for
  // the longest trial the ranks agreed on, not the hour.
  FrozenJob job = freeze_rank_zero_per_node("per-node-one", {"solo", "solo"}, 3);
  expect_ended_by_the_watchdog(job, "a peer is stalled or frozen");
  EXPECT_NE(job.run.result.err.find("rank 1: "), std::string::npos) << job.run.result.err;
}
