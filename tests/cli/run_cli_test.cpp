// `placebench run`, `compare` and `stats` end to end: the run directory's contents, kill -9 and resume,
// SIGINT (and SIGHUP, SIGQUIT, SIGTERM), --fail-on, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "placebench/hostpipe/cpulist.h"
#include "placebench/kernels/device_runtime.h"
#include "placebench/hostpipe/process_limits.h"
#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

std::string tiny() { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/tiny.yaml"; }

std::string fresh_dir(const std::string& name) {
  std::string d = ::testing::TempDir() + "/pb-run-" + name;
  std::filesystem::remove_all(d);
  return d;
}

std::vector<json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> v;
  for (std::string line; std::getline(in, line);) v.push_back(json::parse(line));
  return v;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Starts a run in the background, waits until it has written `lines` trials, then sends `signal`.
CommandResult run_until(const std::string& out, int lines, const std::string& signal, const std::string& rounds) {
  std::string script = "'" + placebench_binary() + "' run --config '" + tiny() + "' --rounds " + rounds + " --out '" + out +
                       "' & pid=$!; for i in $(seq 600); do n=$(cat '" + out + "/trials.jsonl' 2>/dev/null | wc -l); " +
                       "[ \"$n\" -ge " + std::to_string(lines) + " ] && break; sleep 0.05; done; kill -" + signal +
                       " $pid; wait $pid; echo \"status=$?\"";
  return run_command({"bash", "-c", script}, 120);
}

}  // namespace

TEST(RunCli, WritesRunTrialsAndSummary) {
  std::string out = fresh_dir("basic");
  auto r = run_command({placebench_binary(), "run", "--config", tiny(), "--out", out, "--seed", "11"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Class tiny"), std::string::npos);
  json run = read_json(out + "/run.json");
  for (const char* k : {"schema_version", "placebench_version", "git_revision", "command_line", "config", "seed", "host",
                        "topology", "versions", "start_time"})
    EXPECT_TRUE(run.contains(k)) << k;
  EXPECT_EQ(run["seed"], 11);
  // The node's kernel release (uname) and NVIDIA driver (null where no driver is loaded: never a guess).
  EXPECT_TRUE(run["versions"]["kernel"].is_string()) << run["versions"].dump();
  ASSERT_TRUE(run["versions"].contains("gpu_driver"));
  if (!std::filesystem::exists("/proc/driver/nvidia/version")) {
    EXPECT_TRUE(run["versions"]["gpu_driver"].is_null());
  }
  auto trials = read_lines(out + "/trials.jsonl");
  ASSERT_GE(trials.size(), 6u);  // at least min rounds x 2 arms
  for (const auto& t : trials) {
    EXPECT_EQ(t["step_ns"].size(), 12u);
    EXPECT_EQ(t["placement"]["status"], "verified");
    for (const char* k : {"class", "arm", "round", "position", "summary", "flags"}) EXPECT_TRUE(t.contains(k)) << k;
    // The sampler reports the arm's CPUs and, when one is left, runs on another.
    const json& system = t["system"];
    std::string worker = t["placement"]["requested"]["cpus"];
    if (worker.empty()) continue;  // unpinned: every CPU, sampler unbound
    ASSERT_EQ(system["cpu"]["per_cpu"].size(), 1u) << system.dump();
    EXPECT_EQ(std::to_string(system["cpu"]["per_cpu"][0]["cpu"].get<int>()), worker);
    if (placebench::hostpipe::current_thread_affinity().size() > 1) {
      auto sampler = placebench::hostpipe::parse_cpulist(system["sampler"]["cpus"].get<std::string>());
      EXPECT_EQ(std::count(sampler.begin(), sampler.end(), std::stoi(worker)), 0) << system["sampler"].dump();
    }
  }
  json summary = read_json(out + "/summary.json");
  EXPECT_TRUE(summary["complete"]);
  auto cmp = run_command({placebench_binary(), "compare", out, "--json"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  json c = json::parse(cmp.out);
  ASSERT_EQ(c["classes"].size(), 1u);
  const auto& arms = c["classes"][0]["arms"];
  EXPECT_EQ(arms[1]["arm"], "unpinned");
  for (const char* k : {"arm", "role", "n_rounds", "statistic_value", "statistic_ci", "median", "within_run_median_ci",
                        "ratio_pct", "ratio_ci_pct", "repeated_p", "holm_adjusted_p", "verdict", "detectable_pct"})
    EXPECT_TRUE(arms[1].contains(k)) << k;
  EXPECT_EQ(c["complete"], true);
}

TEST(RunCli, KillDashNineLosesAtMostOneTrialAndResumeFinishes) {
  std::string out = fresh_dir("kill");
  auto r = run_until(out, 3, "9", "150:150");
  ASSERT_NE(r.out.find("status=137"), std::string::npos) << r.out << r.err;  // killed, not finished
  auto before = read_lines(out + "/trials.jsonl");
  EXPECT_GE(before.size(), 3u);
  ASSERT_LT(before.size(), 300u);
  std::ofstream(out + "/trials.jsonl", std::ios::app) << "{\"class\":\"tiny\",\"ar";  // a write cut short
  auto cmp = run_command({placebench_binary(), "compare", out, "--json"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.err.find("truncated last line"), std::string::npos);
  EXPECT_EQ(json::parse(cmp.out)["complete"], false);
  auto resumed = run_command({placebench_binary(), "run", "--resume", out}, 300);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto after = read_lines(out + "/trials.jsonl");
  EXPECT_EQ(after.size(), 300u);  // 150 rounds x 2 arms, each slot exactly once
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]);
  std::set<std::pair<int, std::string>> slots;
  for (const auto& t : after) slots.insert({t["round"].get<int>(), t["arm"].get<std::string>()});
  EXPECT_EQ(slots.size(), 300u);
  EXPECT_TRUE(read_json(out + "/summary.json")["complete"]);
}

TEST(RunCli, SigintKeepsFinishedTrialsAndSaysHowToResume) {
  std::string out = fresh_dir("sigint");
  auto r = run_until(out, 2, "INT", "150:150");
  EXPECT_NE(r.out.find("status=130"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("--resume"), std::string::npos);
  EXPECT_FALSE(read_json(out + "/summary.json")["complete"]);
  EXPECT_GE(read_lines(out + "/trials.jsonl").size(), 2u);
}

TEST(RunCli, HangupQuitAndTermStopARunAsSigintDoes) {
  for (const char* signal : {"HUP", "QUIT", "TERM"}) {
    std::string out = fresh_dir(std::string("signal-") + signal);
    auto r = run_until(out, 2, signal, "150:150");
    EXPECT_NE(r.out.find("status=130"), std::string::npos) << signal << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("--resume"), std::string::npos) << signal;
    ASSERT_TRUE(std::filesystem::exists(out + "/summary.json")) << signal << ": ended without its summary";
    json summary = read_json(out + "/summary.json");
    EXPECT_FALSE(summary["complete"]) << signal;
    EXPECT_EQ(summary["trials"].get<std::size_t>(), read_lines(out + "/trials.jsonl").size()) << signal;
  }
}

TEST(RunCli, FailOnInconclusiveExitsThree) {
  // Two rounds cannot give a CI at the requested confidence: every comparison is inconclusive.
  auto r = run_command({placebench_binary(), "run", "--config", tiny(), "--rounds", "2:2", "--out", fresh_dir("failon"),
                        "--fail-on", "inconclusive"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

TEST(RunCli, BadInputExitsTwo) {
  std::string bad = ::testing::TempDir() + "/bad.yaml";
  std::ofstream(bad) << "experiment:\n  steps: many\nclasses:\n  - name: a\n    workload: {type: staging}\n";
  std::string big = ::testing::TempDir() + "/big.yaml";  // refused before the run directory exists
  std::ofstream(big) << "classes:\n  - name: big\n    workload: {type: staging, backend: host, bytes: 1T}\n    allow_degenerate: true\n";
  std::vector<std::vector<std::string>> cases = {
      {"run", "--config", bad},
      {"run", "--config", "/nonexistent.yaml"},
      {"run", "--config", tiny(), "--rounds", "5"},
      {"run", "--resume", "/nonexistent-run"},
      {"run", "--resume", "/tmp", "--seed", "3"},
      {"run", "--config", tiny(), "--seed", "-1"},
      {"run", "--config", big, "--out", ::testing::TempDir() + "/big-run"},
      {"run", "--config", tiny(), "--seed", "99999999999999999999"},
      {"compare", "/nonexistent-run"},
  };
  for (auto args : cases) {
    args.insert(args.begin(), placebench_binary());
    auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(::testing::TempDir() + "/big-run"));
  if (!placebench::kernels::query_device_runtime().usable()) {  // CPU-only node: a cuda staging class is refused up front
    std::string cuda = ::testing::TempDir() + "/cuda.yaml";
    std::ofstream(cuda) << "classes:\n  - name: c\n    workload: {type: staging, backend: cuda, bytes: 64K}\n    allow_degenerate: true\n";
    auto c = run_command({placebench_binary(), "run", "--config", cuda, "--out", ::testing::TempDir() + "/cuda-run"});
    EXPECT_EQ(c.exit_code, 2) << c.err;
    EXPECT_NE(c.err.find("class c: workload.backend cuda: no usable CUDA device"), std::string::npos) << c.err;
    EXPECT_FALSE(std::filesystem::exists(::testing::TempDir() + "/cuda-run"));
  }
  auto r = run_command({placebench_binary(), "run", "--config", bad});
  EXPECT_NE(r.err.find("bad.yaml:2: experiment.steps: 'many' is not a whole number"), std::string::npos) << r.err;
}

TEST(StatsCli, PairedAndUnpairedOnFiles) {
  std::string a = ::testing::TempDir() + "/a.txt", b = ::testing::TempDir() + "/b.txt";
  std::ofstream(a) << "# baseline\n10\n11\n12\n13\n14\n15\n16\n17\n";
  std::ofstream(b) << "12\n13\n14\n15\n16\n17\n18\n19\n";
  auto r = run_command({placebench_binary(), "stats", a, b, "--paired", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["n_a"], 8);
  EXPECT_DOUBLE_EQ(j["hl_shift"].get<double>(), 2.0);  // every pair differs by exactly 2
  EXPECT_DOUBLE_EQ(j["median_a"].get<double>(), 13.5);
  // Every interval says whether it reached its confidence, what it reached and how it was computed.
  for (const char* ci : {"median_ci_a", "median_ci_b", "hl_ci"}) {
    const json& f = j["intervals"][ci];
    EXPECT_EQ(f["method"], "exact") << ci;
    EXPECT_GE(f["achieved_confidence"].get<double>(), 0.95) << ci;
    EXPECT_TRUE(f["coverage_met"].get<bool>()) << ci;
    EXPECT_TRUE(f["construction"].is_string()) << ci;
  }
  auto u = run_command({placebench_binary(), "stats", a, b, "--json"});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_DOUBLE_EQ(json::parse(u.out)["hl_shift"].get<double>(), 2.0);
  std::ofstream(b) << "12\nbanana\n";
  auto bad = run_command({placebench_binary(), "stats", a, b});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("b.txt:2: 'banana' is not a number"), std::string::npos) << bad.err;
}

namespace {

// The progress lines in a command's stderr (not its warnings).
int progress_lines(const std::string& err) {
  int n = 0;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) n += line.find("trials (at most)") != std::string::npos;
  return n;
}

}  // namespace

// --progress and --quiet (progress.h): plain writes its first and last line and not one per trial; --quiet
// (or PLACEBENCH_PROGRESS=none) leaves stderr to warnings and errors; a wrong value is bad input.
TEST(RunCli, ProgressModes) {
  auto plain = run_command({placebench_binary(), "run", "--config", tiny(), "--out", fresh_dir("plain"), "--seed", "11",
                            "--progress", "plain"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("placebench run: 0/8 trials (at most), ETA after the first trial; class tiny round 1/4 arm "),
            std::string::npos)
      << plain.err;
  EXPECT_NE(plain.err.find(" trials (at most) done, "), std::string::npos) << plain.err;
  EXPECT_LE(progress_lines(plain.err), 3) << plain.err;  // the tiny run lasts under 10 s: first, maybe one, last
  auto quiet = run_command({placebench_binary(), "run", "--config", tiny(), "--out", fresh_dir("quiet"), "--quiet"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(progress_lines(quiet.err), 0) << quiet.err;  // warnings (a loaded node) may remain
  EXPECT_NE(quiet.out.find("Class tiny"), std::string::npos);
  auto env = run_command({placebench_binary(), "run", "--config", tiny(), "--out", fresh_dir("env")}, 60,
                         {"PLACEBENCH_PROGRESS=none"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(progress_lines(env.err), 0) << env.err;
  auto bad = run_command({placebench_binary(), "run", "--config", tiny(), "--out", fresh_dir("bad")}, 60,
                         {"PLACEBENCH_PROGRESS=loud"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("PLACEBENCH_PROGRESS loud: not auto, tty, plain or none"), std::string::npos) << bad.err;
  EXPECT_EQ(run_command({placebench_binary(), "run", "--quiet", "--progress", "plain"}).exit_code, 2);
}
