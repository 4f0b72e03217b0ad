// `placebench cost`: stranded GPU time of a partial gang, by hand and from gang results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "placebench/harness/decisions/cost.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;
using namespace placebench::harness::decisions;

namespace {
std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/decisions/" + rel; }
}  // namespace

TEST(Cost, WorkedExample) {
  // 8 GPUs idle 12 min: 96 GPU-min = 1.6 GPU-h; at 2.50/GPU-h 4.00; 3 a day: 4.8 GPU-h, 12.00.
  CostInput in;
  in.gpus = 8;
  in.wait_s = 12 * 60;
  in.stranded_gpu_s_per_incident = 8 * 12 * 60;
  in.rate_per_gpu_hour = 2.5;
  in.incidents_per_day = 3;
  in.incidents_per_day_given = true;
  CostResult r = compute_cost(in);
  EXPECT_DOUBLE_EQ(r.stranded_gpu_min, 96.0);
  EXPECT_DOUBLE_EQ(r.stranded_gpu_h, 1.6);
  EXPECT_DOUBLE_EQ(*r.cost, 4.0);
  EXPECT_NEAR(r.per_day_gpu_h, 4.8, 1e-12);
  EXPECT_NEAR(*r.per_day_cost, 12.0, 1e-12);
  nlohmann::json j = cost_to_json(r);
  EXPECT_EQ(j["stranded_gpu_min"], 96.0);
  EXPECT_EQ(j["stranded_gpu_h"], 1.6);
  EXPECT_EQ(j["cost"], 4.0);
  EXPECT_EQ(j["per_day"]["gpu_h"], 4.8);
  EXPECT_EQ(j["per_day"]["cost"], 12.0);
  EXPECT_NE(render_cost_text(r).find("internal accounting"), std::string::npos);
}

TEST(Cost, NoRateMeansNoCost) {
  CostInput in;
  in.stranded_gpu_s_per_incident = 3600;
  CostResult r = compute_cost(in);
  EXPECT_FALSE(r.cost.has_value());
  EXPECT_TRUE(cost_to_json(r)["cost"].is_null());
  EXPECT_TRUE(cost_to_json(r)["per_day"]["incidents_assumed"].get<bool>());
}

TEST(Cost, ReadsGangIncidents) {
  auto incidents = read_gang_incidents(fixture("gang-incidents.jsonl"));
  ASSERT_EQ(incidents.size(), 3u);
  EXPECT_EQ(incidents[0].stranded_gpu_s, 720.0);
  EXPECT_EQ(incidents[2].outcome, "failed_deadline");
  EXPECT_NE(incidents[1].source.find("gang-incidents.jsonl:2"), std::string::npos);
  // A directory: trials.jsonl first; a single gang JSON file works too.
  auto dir = std::filesystem::temp_directory_path() / "pb_cost_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gang-0.json") << R"({"outcome": "complete", "stranded_gpu_s": 100})";
  std::ofstream(dir / "gang-1.json") << R"({"outcome": "complete", "stranded_gpu_s": 300})";
  auto from_dir = read_gang_incidents(dir.string());
  ASSERT_EQ(from_dir.size(), 2u);
  EXPECT_EQ(from_dir[1].stranded_gpu_s, 300.0);
  std::ofstream(dir / "trials.jsonl") << R"({"summary": {"stranded_gpu_s": 50}})" << "\n" << R"({"summary": {"stran)";
  auto from_trials = read_gang_incidents(dir.string());  // truncated last line skipped
  ASSERT_EQ(from_trials.size(), 1u);
  std::ofstream(dir / "trials.jsonl") << R"({"summary": {"stranded_gpu_s": -5}})" << "\n";
  EXPECT_THROW(read_gang_incidents(dir.string()), InputError);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(read_gang_incidents(fixture("issue-example.yaml")), InputError);
  EXPECT_THROW(read_gang_incidents(fixture("no-such")), InputError);
}

TEST(Cost, OnlyGangsThatStrandedSomethingAreIncidents) {
  CostInput in;
  set_measured_incidents(in, {{"a", 600.0, "complete"}, {"b", 0.0, "complete"}, {"c", 300.0, "failed_deadline"}, {"d", 0.0, ""}});
  ASSERT_EQ(in.incidents.size(), 2u);
  EXPECT_EQ(in.incidents[1].source, "c");
  EXPECT_EQ(in.on_time_gangs, 2);
  EXPECT_DOUBLE_EQ(in.stranded_gpu_s_per_incident, 450.0);  // (600 + 300) / 2, not / 4
  CostInput none;
  set_measured_incidents(none, {{"a", 0.0, "complete"}});
  EXPECT_TRUE(none.incidents.empty());
  EXPECT_EQ(none.on_time_gangs, 1);
  EXPECT_DOUBLE_EQ(none.stranded_gpu_s_per_incident, 0.0);
  EXPECT_EQ(cost_to_json(compute_cost(none))["on_time_gangs"], 1);
}

TEST(Cost, AnEmptyFileInAFolderIsSkippedWithAWarning) {
  auto dir = std::filesystem::path(::testing::TempDir()) / "pb-cost-skip";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "empty.json").close();
  std::ofstream(dir / "gang.json") << R"({"stranded_gpu_s": 12.5, "outcome": "complete"})";
  std::vector<std::string> warnings;
  auto got = read_gang_incidents(dir.string(), &warnings);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].stranded_gpu_s, 12.5);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("empty.json: skipped (") , std::string::npos) << warnings[0];
  EXPECT_THROW(read_gang_incidents(dir.string()), InputError);  // without a warning list: refused, as before
  EXPECT_THROW(read_gang_incidents((dir / "empty.json").string(), &warnings), InputError);  // given by name: refused
}
