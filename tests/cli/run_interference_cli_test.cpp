// `placebench run` with interference conditions (issue 32) end to end: every (arm, condition) cell once a
// round, each loaded trial with the hog's measured bandwidth, the summary's conditions, and `compare`
// reading the run back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

TEST(RunInterferenceCli, AQuietAndALoadedConditionInTheSameRounds) {
  const std::string config = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/interference-tiny.yaml";
  const std::string out = ::testing::TempDir() + "/pb-run-interference";
  std::filesystem::remove_all(out);
  auto r = run_command({placebench_binary(), "run", "--config", config, "--out", out, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Under membw-device-1 (membw hog on the device node, 1 thread"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tiny under membw-device-1:"), std::string::npos) << r.out;
  std::ifstream in(out + "/trials.jsonl");
  std::set<std::tuple<int, std::string, std::string>> cells;
  std::set<std::pair<int, int>> positions;
  std::set<std::string> dosed_arms;  // arms with a loaded trial whose hog applied its dose
  for (std::string line; std::getline(in, line);) {
    json t = json::parse(line);
    cells.insert({t["round"].get<int>(), t["arm"].get<std::string>(), t["condition"].get<std::string>()});
    positions.insert({t["round"].get<int>(), t["position"].get<int>()});
    const json& load = t["interference"];
    EXPECT_EQ(load["condition"], t["condition"]);
    if (t["condition"] == "quiet") {
      EXPECT_FALSE(load.contains("gbps")) << load.dump();
      continue;
    }
    EXPECT_EQ(load["hog"], "membw");
    EXPECT_EQ(load["threads"], 1);
    // A dose is a measured figure: the hog moved memory, or (on a busy machine that starved it) its record
    // says the trial ran under less load than its condition names.
    if (load["problems"].empty()) {
      EXPECT_GT(load["gbps"].get<double>(), 0.05) << load.dump();
      EXPECT_GT(load["cpu_s"].get<double>(), 0.0) << load.dump();
      EXPECT_LE(load["cores"].get<double>(), 1.05) << load.dump();  // one thread: its own rate, at most a core
      dosed_arms.insert(t["arm"].get<std::string>());
    } else {
      EXPECT_NE(load["problems"][0].get<std::string>().find("hog starved"), std::string::npos) << load.dump();
      EXPECT_LT(load["cores"].get<double>(), 0.5) << load.dump();
    }
  }
  EXPECT_EQ(cells.size(), 3u * 2u * 2u);      // 3 rounds x 2 arms x 2 conditions, each once
  EXPECT_EQ(positions.size(), 3u * 4u);       // positions 0..3 in each round
  std::ifstream sin(out + "/summary.json");
  json summary = json::parse(sin);
  const json& c = summary["classes"][0];
  EXPECT_EQ(c["condition"], "quiet");
  ASSERT_EQ(c["conditions"].size(), 1u);
  EXPECT_EQ(c["conditions"][0]["condition"], "membw-device-1");
  // The measured dose and the slopes come from the trials whose hog applied its dose (a starved hog's trial
  // is left out): local and unpinned against the hog's GB/s, each where it has such a trial.
  if (dosed_arms.empty())
    EXPECT_TRUE(c["conditions"][0]["aggressor_gbps"].is_null()) << c.dump();
  else
    EXPECT_GT(c["conditions"][0]["aggressor_gbps"].get<double>(), 0.05);
  EXPECT_EQ(c["dose_response"].size(), dosed_arms.size()) << c.dump();
  auto cmp = run_command({placebench_binary(), "compare", out});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("dose-response"), std::string::npos) << cmp.out;
  // --resume runs exactly the cells not yet recorded (the slots are keyed by arm and condition).
  {
    std::ifstream all(out + "/trials.jsonl");
    std::string kept, line;
    for (int i = 0; i < 7 && std::getline(all, line); ++i) kept += line + "\n";
    all.close();
    std::ofstream(out + "/trials.jsonl") << kept;
  }
  std::filesystem::remove(out + "/summary.json");
  auto resumed = run_command({placebench_binary(), "run", "--resume", out, "--quiet"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::ifstream again(out + "/trials.jsonl");
  std::set<std::tuple<int, std::string, std::string>> resumed_cells;
  int lines = 0;
  for (std::string line; std::getline(again, line); ++lines) {
    json t = json::parse(line);
    resumed_cells.insert({t["round"].get<int>(), t["arm"].get<std::string>(), t["condition"].get<std::string>()});
  }
  EXPECT_EQ(lines, 12);
  EXPECT_EQ(resumed_cells, cells);
  std::filesystem::remove_all(out);
}

TEST(RunInterferenceCli, ABadConditionIsOneLineAndExitTwo) {
  const std::string dir = ::testing::TempDir() + "/pb-interference-bad";
  std::filesystem::create_directories(dir);
  const std::string config = dir + "/bad.yaml";
  std::ofstream(config) << "classes:\n  - name: a\n    workload: {type: staging, backend: host}\n"
                           "    interference: [quiet, {hog: membw, node: far, dose: 1}]\n";
  auto r = run_command({placebench_binary(), "run", "--config", config, "--out", dir + "/out"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(config + ":4: classes[0].interference[1].node: 'far' is not accepted; accepted values: device, other"),
            std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  std::filesystem::remove_all(dir);
}
