// `placebench pipeline --backend host` end to end: JSON fields, the jpeg stage, contention, one-line
// refusals of nonsensical combinations (exit 2), and SIGINT (results so far printed, exit 130).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"
#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

std::vector<std::string> small_run(std::vector<std::string> extra) {
  std::vector<std::string> args = {placebench_binary(), "pipeline", "--backend", "host", "--steps", "8", "--warmup", "1",
                                   "--batch-samples", "4", "--image", "32x32", "--step-compute", "500us", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// small_run with `option` given `value` (replaced where small_run gives it: CLI11 refuses a repeat).
std::vector<std::string> small_run_with(const std::string& option, const std::string& value, std::vector<std::string> extra = {}) {
  auto args = small_run(extra);
  auto at = std::find(args.begin(), args.end(), option);
  if (at != args.end()) {
    *(at + 1) = value;
  } else {
    args.push_back(option);
    args.push_back(value);
  }
  return args;
}

// Whether process `pid` has a handler for SIGINT (SigCgt in /proc/PID/status, a hex mask; SIGINT is bit 1).
bool sigint_caught(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("SigCgt:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGINT - 1));
  return false;
}

}  // namespace

TEST(PipelineCli, JsonHasStepsSummaryAndPlacement) {
  auto r = run_command(small_run({"--workers", "1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["backend"], "host");
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["config"]["batch_bytes"], 4 * 32 * 32 * 12);
  EXPECT_EQ(j["config"]["ring"], 4);  // prefetch 2 + 1 worker + 1
  ASSERT_EQ(j["steps"].size(), 8u);
  for (const auto& s : j["steps"]) {
    for (const char* k : {"wait_ns", "h2d_ns", "compute_ns", "step_ns"}) EXPECT_GE(s[k].get<std::int64_t>(), 0) << k;
    EXPECT_GE(s["step_ns"].get<std::int64_t>(), s["wait_ns"].get<std::int64_t>() + s["compute_ns"].get<std::int64_t>());
  }
  const json& m = j["summary"];
  for (const char* k : {"throughput_samples_s", "input_bound_pct", "step_ns_median", "step_ns_p99", "wait_ns_median",
                        "cpu_util", "peak_rss_bytes", "pinned_bytes"})
    EXPECT_TRUE(m.contains(k)) << k;
  EXPECT_GT(m["throughput_samples_s"].get<double>(), 0);
  EXPECT_TRUE(m["input_bound_class"] == "not" || m["input_bound_class"] == "moderately" || m["input_bound_class"] == "highly");
  ASSERT_EQ(j["placement"]["workers"].size(), 1u);
  EXPECT_EQ(j["placement"]["workers"][0]["status"], "verified") << j["placement"].dump();
  EXPECT_EQ(j["placement"]["ring"]["status"], "verified") << j["placement"].dump();
  // The training loop is placed too: on the arm's node, beside the worker when a CPU is left.
  const json& loop = j["placement"]["loop"];
  EXPECT_EQ(loop["status"], "verified") << loop.dump();
  EXPECT_EQ(loop["effective"]["cpus"], loop["requested"]["cpus"]) << loop.dump();
  std::vector<int> loop_cpus = placebench::hostpipe::parse_cpulist(loop["requested"]["cpus"].get<std::string>());
  std::vector<int> worker_cpus =
      placebench::hostpipe::parse_cpulist(j["placement"]["workers"][0]["requested"]["cpus"].get<std::string>());
  ASSERT_FALSE(loop_cpus.empty());
  if (placebench::hostpipe::current_thread_affinity().size() > 1) {
    for (int c : worker_cpus) EXPECT_EQ(std::count(loop_cpus.begin(), loop_cpus.end(), c), 0) << loop.dump();
  }
}

TEST(PipelineCli, UnpinnedLeavesTheTrainingLoopUnbound) {
  auto r = run_command(small_run({"--arm", "unpinned"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json loop = json::parse(r.out)["placement"]["loop"];
  EXPECT_EQ(loop["requested"]["cpus"], "") << loop.dump();
  EXPECT_EQ(placebench::hostpipe::parse_cpulist(loop["effective"]["cpus"].get<std::string>()),
            placebench::hostpipe::current_thread_affinity())
      << loop.dump();
}

TEST(PipelineCli, JpegStageAndContentionRun) {
  auto r = run_command(small_run({"--decode", "jpeg", "--dataset-samples", "4", "--contention", "stream:0:1:3M+spin:0"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["config"]["decode"], "jpeg");
  EXPECT_EQ(j["steps"].size(), 8u);
  ASSERT_EQ(j["contention"].size(), 2u);
  EXPECT_EQ(j["contention"][0]["kind"], "stream");
  EXPECT_GT(j["contention"][0]["gbps"].get<double>(), 0);
}

TEST(PipelineCli, TableNamesTheSplit) {
  auto args = small_run({});
  args.pop_back();  // no --json
  auto r = run_command(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"wait", "h2d", "compute", "Throughput", "Input-bound", "Placement", "verified"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(PipelineCli, NonsensicalCombinationsExitTwoWithOneLine) {
  std::vector<std::vector<std::string>> cases = {
      {"--workers", "0"},
      {"--prefetch", "3", "--ring", "3"},
      {"--batch-bytes", "1T"},
      {"--decode", "jpeg", "--batch-bytes", "1M"},
      {"--contention", "stream:0"},
      {"--contention", "stream:99:1"},
      {"--image", "0x4"},
      {"--arm", "nearby"},
      {"--steps", "0"},
  };
  for (const auto& extra : cases) {
    auto r = run_command(small_run(extra));
    EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// Refused up front, in one line naming the option, with no wait: each would otherwise be OOM-killed
// (a 64M buffer per stream thread), hang (a batch or a step longer than any deadline), or run with a
// background thread that could not be placed.
TEST(PipelineCli, ContentionIsCheckedAgainstTheMachine) {
  std::vector<int> allowed = placebench::hostpipe::current_thread_affinity();
  int missing_cpu = allowed.back() + 1;
  struct Case {
    std::string spec, expect;
  };
  std::vector<Case> cases = {
      {"stream:0:99999", "--contention: 'stream:0:99999' asks for 99999 threads; at most 4096"},
      {"stream:0:1:100T", "--contention: the stream threads' buffers ("},
      {"stream:99:1", "--contention: NUMA node 99 does not exist on this machine"},
      {"spin:0-2000000000", "CPU ids above"},
  };
  if (4 * allowed.size() < 4096) {  // within the per-item limit: the per-CPU one refuses
    cases.push_back({"stream:0:" + std::to_string(4 * allowed.size() + 1), "per CPU this process may use"});
    cases.push_back({"spin:0+stream:0:" + std::to_string(4 * allowed.size()), "per CPU this process may use"});
  }
  if (missing_cpu < 1024) {  // a CPU id that could be bound, were it there
    std::string cpu = std::to_string(missing_cpu);
    cases.push_back({"spin:" + cpu, "--contention: CPU " + cpu + " does not exist or is not one this process may use"});
    cases.push_back({"stream:0:1@" + cpu, "--contention: CPU " + cpu + " does not exist"});
  }
  for (const auto& c : cases) {
    auto r = run_command(small_run({"--contention", c.spec}), 30);
    EXPECT_EQ(r.exit_code, 2) << c.spec << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.spec << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(PipelineCli, WorkAndDurationsBeyondTheStallTimeoutAreRefused) {
  std::string zeros(400, '0');
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      // The audit's command: 1e8 ns/KiB x 1536 KiB is 154 s per batch, far past the auto 10.02 s.
      {{placebench_binary(), "pipeline", "--backend", "host", "--decode", "synthetic", "--cpu-work", "1e8", "--steps", "1",
        "--warmup", "0"},
       "--cpu-work: one batch's synthetic work is 153.6 s of CPU time (1e+08 ns/KiB x 1536 KiB), more than the stall "
       "timeout 10.02 s (auto: 10 s + 10 x --step-compute)"},
      {small_run({"--cpu-work", "1e8", "--stall-timeout", "2s"}), "more than the stall timeout 2 s (--stall-timeout)"},
      {small_run_with("--step-compute", "100000h"), "--step-compute: 100000 h is more than the 60 s accepted; use at most 60 s"},
      {small_run_with("--step-compute", "1" + zeros + "s"), "is 402 characters long; give at most 64"},
      {small_run_with("--step-compute", "2s", {"--stall-timeout", "1s"}), "--step-compute: 2 s is not below --stall-timeout 1 s"},
      {small_run({"--stall-timeout", "100000h"}), "--stall-timeout: 100000 h is more than the 1 h accepted"},
      {small_run({"--cpu-work", "inf"}), "--cpu-work: is infinite"},
      {small_run_with("--image", "100000x2"), "--image: '100000x2': width and height must be 1 to 65536"},
  };
  for (const auto& c : cases) {
    auto start = std::chrono::steady_clock::now();
    auto r = run_command(c.args, 30);
    EXPECT_EQ(r.exit_code, 2) << c.args[c.args.size() - 2] << " " << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  }
  // Work within the timeout still runs.
  auto r = run_command(small_run({"--cpu-work", "1000"}), 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// SIGINT mid-run: the run stops after the current step, prints the steps measured so far and exits 130.
TEST(PipelineCli, SigintPrintsResultsSoFarAndExits130) {
  char out_path[] = "/tmp/placebench-pipeline-sigint-XXXXXX";
  int out_fd = mkstemp(out_path);
  ASSERT_GE(out_fd, 0);
  auto args = small_run({});
  args[5] = "1000000";  // --steps: far more than the test waits for
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_fd);
  // Wait until the run has installed its SIGINT handler (SigCgt bit 2 = SIGINT), then let it measure.
  auto ready_by = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!sigint_caught(pid) && std::chrono::steady_clock::now() < ready_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGINT);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL() << "placebench did not stop after SIGINT";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::stringstream out;
  out << std::ifstream(out_path).rdbuf();
  std::remove(out_path);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  json j = json::parse(out.str());
  EXPECT_EQ(j["status"], "interrupted");
  EXPECT_GT(j["steps"].size(), 0u);
  EXPECT_LT(j["steps"].size(), 1000000u);
}
