// `placebench decide`, `cost` and `feasible` end to end on the fixtures in tests/fixtures/decisions.
#include <gtest/gtest.h>

#include <fstream>

#include <filesystem>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/decisions/" + rel; }

CommandResult run_pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args);
}

const json& policy(const json& cls, const std::string& name) {
  for (const auto& p : cls["policies"])
    if (p["policy"] == name) return p;
  throw std::runtime_error("no policy " + name);
}

const std::vector<std::string> kWhatIf = {"decide", "--gpus", "8", "--exec-local", "54m", "--exec-remote", "60m",
                                          "--queue", "strict=30m,prefer=10m,any=5m", "--rate", "2.5"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

}  // namespace

TEST(DecideCli, RunDirectory) {
  auto r = run_pb({"decide", fixture("run-basic"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["classes"].size(), 3u);
  const json& training = j["classes"][0];
  EXPECT_EQ(training["name"], "long-training");
  EXPECT_EQ(training["recommendation"], "strict");
  EXPECT_EQ(policy(training, "strict")["exec_min"], 54.0);
  EXPECT_EQ(policy(training, "strict")["queue_min"], 30.0);
  EXPECT_EQ(policy(training, "strict")["turnaround_min"], 84.0);
  EXPECT_EQ(policy(training, "strict")["gpu_min_per_job"], 432.0);
  EXPECT_EQ(policy(training, "strict")["gpu_min_saved_vs_any"], 48.0);
  EXPECT_EQ(policy(training, "strict")["turnaround_delta_min_vs_any"], 19.0);
  EXPECT_EQ(policy(training, "strict")["cost_per_job"], 18.0);
  EXPECT_EQ(policy(training, "any")["exec_min_ci"], json::array({58.32, 61.83}));
  EXPECT_TRUE(training["rationale"].is_string());
  EXPECT_EQ(j["classes"][1]["recommendation"], "inconclusive");
  EXPECT_NE(j["classes"][1]["settle"].get<std::string>().find("more rounds"), std::string::npos);
  EXPECT_EQ(j["classes"][2]["recommendation"], "none");
  EXPECT_NE(j["classes"][2]["rationale"].get<std::string>().find("cannot be decided"), std::string::npos);
}

TEST(DecideCli, TableSaysRecommendationAndWhy) {
  auto r = run_pb({"decide", fixture("run-basic")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"Class long-training", "Recommendation: strict", "Recommendation: inconclusive",
                        "not decidable", "Turnaround", "GPU-min", "GPU-min saved vs any", "Cost"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  auto wide = run_pb({"decide", fixture("run-basic"), "--wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  for (const char* s : {"Turnaround min", "GPU-min/job", "Turnaround vs any", "Cost/job", "57.0 [56.2, 57.9]"})
    EXPECT_NE(wide.out.find(s), std::string::npos) << s << "\n" << wide.out;
}

TEST(DecideCli, AnUnknownSummarySchemaVersionExitsTwo) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "pb-decide-schema99";
  fs::remove_all(dir);
  fs::copy(fixture("run-basic"), dir);
  std::ifstream in(dir / "summary.json");
  nlohmann::json s = nlohmann::json::parse(in);
  in.close();
  s["schema_version"] = 99;
  std::ofstream(dir / "summary.json") << s.dump();
  auto r = run_pb({"decide", dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("schema_version 99 is not the 2 this placebench reads"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  fs::remove_all(dir);
}

TEST(DecideCli, WhatIfEfficiencyVersusTurnaround) {
  auto eff = run_pb(with(kWhatIf, {"--objective", "efficiency", "--json"}));
  ASSERT_EQ(eff.exit_code, 0) << eff.err;
  json e = json::parse(eff.out)["classes"][0];
  EXPECT_EQ(e["recommendation"], "strict");
  EXPECT_EQ(policy(e, "prefer")["exec_min"], 57.0);
  EXPECT_EQ(policy(e, "any")["gpu_min_per_job"], 480.0);
  auto turn = run_pb(with(kWhatIf, {"--objective", "turnaround", "--exec-remote-ci", "58.32m,61.83m", "--json"}));
  ASSERT_EQ(turn.exit_code, 0) << turn.err;
  json t = json::parse(turn.out)["classes"][0];
  EXPECT_EQ(t["recommendation"], "any");
  EXPECT_EQ(policy(t, "strict")["turnaround_delta_min_vs_any_ci"], json::array({17.17, 20.68}));
  auto weighted = run_pb(with(kWhatIf, {"--objective", "0.5", "--exec-remote-ci", "58.32m,61.83m", "--json"}));
  ASSERT_EQ(weighted.exit_code, 0) << weighted.err;
  EXPECT_EQ(json::parse(weighted.out)["classes"][0]["recommendation"], "inconclusive");
}

TEST(DecideCli, BadInputExitsTwo) {
  std::vector<std::vector<std::string>> cases = {
      {"decide", fixture("no-such-run")},
      {"decide", "--gpus", "8", "--exec-local", "54m", "--exec-remote", "60m"},
      {"decide", "--gpus", "8", "--exec-local", "54m", "--exec-remote", "60m", "--queue", "strict=30m,any=5m"},
      {"decide", "--gpus", "8", "--exec-local", "54m", "--exec-remote", "60m", "--queue", "strict=30m,prefer=1x,any=5m"},
      with(kWhatIf, {"--objective", "speed"}),
      with(kWhatIf, {"--exec-remote-ci", "61m,65m"}),
      with(kWhatIf, {"--p-local-prefer", "2"}),
      {"decide", fixture("run-basic"), "--gpus", "8"},
  };
  for (auto args : cases) {
    auto r = run_pb(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(CostCli, WorkedExample) {
  auto r = run_pb({"cost", "--gpus", "8", "--wait", "12m", "--rate", "2.5", "--incidents-per-day", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["stranded_gpu_min"], 96.0);
  EXPECT_EQ(j["stranded_gpu_h"], 1.6);
  EXPECT_EQ(j["cost"], 4.0);
  EXPECT_EQ(j["per_day"]["gpu_h"], 4.8);
  EXPECT_EQ(j["per_day"]["cost"], 12.0);
  auto text = run_pb({"cost", "--gpus", "8", "--wait", "12m", "--rate", "2.5"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("not cash saved"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("96.0 GPU-min"), std::string::npos) << text.out;
}

TEST(CostCli, FromGangResults) {
  auto r = run_pb({"cost", "--from", fixture("gang-incidents.jsonl"), "--rate", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["incidents"].size(), 3u);
  EXPECT_EQ(j["stranded_gpu_min"], 12.0);  // mean of 720, 480, 960 GPU-s
  EXPECT_EQ(j["cost"], 0.6);
}

TEST(CostCli, BadInputExitsTwo) {
  for (auto args : std::vector<std::vector<std::string>>{{"cost", "--gpus", "8"},
                                                         {"cost", "--gpus", "8", "--wait", "soon"},
                                                         {"cost", "--gpus", "-1", "--wait", "1m"},
                                                         {"cost", "--from", fixture("issue-example.yaml")},
                                                         {"cost", "--from", fixture("gang-incidents.jsonl"), "--gpus", "2"}}) {
    auto r = run_pb(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(FeasibleCli, FreeIsNotRunnable) {
  auto r = run_pb({"feasible", "--inventory", fixture("cluster-stranded.yaml"), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // not runnable as contracted (strict)
  json j = json::parse(r.out);
  EXPECT_EQ(j["free_gpus"], 12);
  EXPECT_EQ(j["placeable_workers_strict"], 0);
  EXPECT_EQ(j["placeable_workers_relaxed"], 2);
  EXPECT_EQ(j["job_runnable_strict"], false);
  EXPECT_EQ(j["job_runnable_relaxed"], true);
  EXPECT_EQ(j["nodes"].size(), 3u);
  EXPECT_EQ(j["nodes"][0]["name"], "gpu-a");
  EXPECT_FALSE(j["nodes"][0]["reasons"].empty());
  auto text = run_pb({"feasible", "--inventory", fixture("cluster-stranded.yaml")});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("relaxing locality makes it runnable"), std::string::npos) << text.out;
  auto relaxed = run_pb({"feasible", "--inventory", fixture("cluster-stranded.json"), "--job", fixture("job-relaxed.yaml")});
  EXPECT_EQ(relaxed.exit_code, 0) << relaxed.err << relaxed.out;
}

TEST(FeasibleCli, IssueExampleVerbatim) {
  auto r = run_pb({"feasible", "--inventory", fixture("issue-example.yaml"), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["free_gpus"], 2);
  EXPECT_EQ(j["placeable_workers_strict"], 0);
  EXPECT_EQ(j["placeable_workers_relaxed"], 1);
}

TEST(FeasibleCli, BadInventoriesExitTwoNamingFileLineKey) {
  struct Case {
    std::string file, expect;
  } cases[] = {{"bad-gpu-numa.yaml", "bad-gpu-numa.yaml:8: nodes[0].gpus[1].numa"},
               {"bad-negative.yaml", "bad-negative.yaml:4: nodes[0].numa[0].free_cpus"},
               {"bad-free-gt-total.yaml", "bad-free-gt-total.yaml:4: nodes[0].numa[0].free_gpus"},
               {"bad-unknown-key.yaml", "bad-unknown-key.yaml:4: nodes[0].numa[0].free_gpu"},
               {"no-such.yaml", "no-such.yaml"}};
  for (const auto& c : cases) {
    auto r = run_pb({"feasible", "--inventory", fixture(c.file)});
    EXPECT_EQ(r.exit_code, 2) << c.file << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r = run_pb({"feasible", "--inventory", fixture("cluster-stranded.json")});  // no job anywhere
  EXPECT_EQ(r.exit_code, 2) << r.err;
}
