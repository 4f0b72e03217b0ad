// `decide` on a class run under interference conditions (issue 32, docs/decisions.md#under-load): the
// decision block's `under_load` (quiet, worst, a share of time under load) picks the figures that drive the
// policy, and decide says which condition did (text and JSON).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "placebench/harness/decisions/decide_format.h"
#include "placebench/harness/decisions/decide_input.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/analysis.h"
#include <yaml-cpp/yaml.h>

using namespace placebench::harness;
using namespace placebench::harness::decisions;
using nlohmann::json;

namespace {

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/decisions/" + rel; }

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// run-basic's first class (remote +11.1% [8.0, 14.5] against local, quiet) given a loaded condition in which
// remote costs `loaded_pct` [lo, hi], and the decision block's `under_load` (null: no key).
struct LoadedRun {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("pb-under-load-" + std::to_string(getpid()));
  json run, summary;
  LoadedRun(double loaded_pct, double lo, double hi, const json& under_load) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    run = read_json(fixture("run-basic/run.json"));
    summary = read_json(fixture("run-basic/summary.json"));
    json& cls = run["config"]["classes"][0];
    cls["interference"] = json::array(
        {{{"name", "quiet"}, {"hog", "quiet"}, {"node", "device"}, {"threads", 0}, {"bytes", 67108864}},
         {{"name", "membw-device-2"}, {"hog", "membw"}, {"node", "device"}, {"threads", 2}, {"bytes", 67108864}}});
    if (!under_load.is_null()) cls["decision"]["under_load"] = under_load;
    json& c = summary["classes"][0];
    json loaded = c;
    for (auto [entry, name, hog, node, threads] : {std::tuple{&c, "quiet", "quiet", json(nullptr), 0},
                                                   std::tuple{&loaded, "membw-device-2", "membw", json("device"), 2}}) {
      (*entry)["condition"] = name;
      (*entry)["hog"] = hog;
      (*entry)["hog_node"] = node;
      (*entry)["hog_threads"] = threads;
      (*entry)["aggressor_gbps"] = threads ? json(9.5) : json(nullptr);
      (*entry)["aggressor_cores"] = threads ? json(2.0) : json(nullptr);
    }
    loaded["arms"][1]["ratio_pct"] = loaded_pct;
    loaded["arms"][1]["ratio_ci_pct"] = {lo, hi};
    c["conditions"] = json::array({loaded});
    c["dose_response"] = json::array();
    std::ofstream(dir / "run.json") << run.dump(2);
    std::ofstream(dir / "summary.json") << summary.dump(2);
    std::filesystem::copy_file(fixture("run-basic/trials.jsonl"), dir / "trials.jsonl");
  }
  ~LoadedRun() { std::filesystem::remove_all(dir); }
  ClassDecision decide() { return decide_run_directory(dir.string(), {}).classes.at(0); }
};

}  // namespace

TEST(DecideUnderLoad, WithoutTheKeyTheQuietFiguresDriveAndDecideSaysSo) {
  LoadedRun r(40, 30, 50, nullptr);
  const ClassDecision d = r.decide();
  ASSERT_TRUE(d.decidable) << d.reason;
  EXPECT_NEAR(d.input->remote.pct, 100.0 / 9.0, 1e-6);
  EXPECT_EQ(d.input->remote.condition, "quiet");
  EXPECT_EQ(d.input->remote.under_load, "quiet");
  EXPECT_NE(d.rationale.find("(figures of condition quiet, under_load: quiet)"), std::string::npos) << d.rationale;
}

TEST(DecideUnderLoad, WorstPicksTheConditionWhereAnyCostsMost) {
  LoadedRun r(40, 30, 50, "worst");
  const ClassDecision d = r.decide();
  ASSERT_TRUE(d.decidable) << d.reason;
  EXPECT_DOUBLE_EQ(d.input->remote.pct, 40);
  EXPECT_EQ(d.input->remote.condition, "membw-device-2");
  // Text and JSON name it.
  const DecideReport report = decide_run_directory(r.dir.string(), {});
  const std::string text = render_decide_table(report);
  EXPECT_NE(text.find("condition that drove the policy: membw-device-2 (under_load: worst)"), std::string::npos) << text;
  const json j = decide_to_json(report);
  EXPECT_EQ(j["classes"][0]["inputs"]["condition"], "membw-device-2");
  EXPECT_EQ(j["classes"][0]["inputs"]["under_load"], "worst");
  // When the quiet figures are the worse ones, they drive.
  LoadedRun milder(5, 2, 8, "worst");
  EXPECT_EQ(milder.decide().input->remote.condition, "quiet");
}

// On a one-NUMA node a condition naming the `other` node loads the device's node (its summary entry warns so):
// when it drives the policy, the rationale says it was degenerate, and the JSON keeps its plain name.
TEST(DecideUnderLoad, ADegenerateConditionThatDrivesThePolicyIsSaidToBe) {
  LoadedRun r(40, 30, 50, "worst");
  json& loaded = r.summary["classes"][0]["conditions"][0];
  loaded["warnings"].push_back(std::string("membw-device-2: ") + std::string(kDegenerateHogWarning) +
                               " (one NUMA node): this condition loads the device's node, not another");
  std::ofstream(r.dir / "summary.json") << r.summary.dump(2);
  const ClassDecision d = r.decide();
  ASSERT_TRUE(d.decidable) << d.reason;
  EXPECT_EQ(d.input->remote.condition, "membw-device-2");
  EXPECT_NE(d.rationale.find("under_load: worst; degenerate here: its hog loaded the device's node"), std::string::npos)
      << d.rationale;
  LoadedRun plain(40, 30, 50, "worst");
  EXPECT_EQ(plain.decide().rationale.find("degenerate"), std::string::npos);
}

// decide --under-load replaces the block's rule for this decision; its value is checked as the key's is.
TEST(DecideUnderLoad, TheCommandLineRuleOverridesTheBlocks) {
  LoadedRun r(40, 30, 50, "quiet");
  DecideOverrides worst;
  worst.under_load = parse_under_load("worst", "--under-load");
  ClassDecision d = decide_run_directory(r.dir.string(), worst).classes.at(0);
  ASSERT_TRUE(d.decidable) << d.reason;
  EXPECT_EQ(d.input->remote.condition, "membw-device-2");
  EXPECT_EQ(d.input->remote.under_load, "worst");
  DecideOverrides share;
  share.under_load = parse_under_load("0.25", "--under-load");
  d = decide_run_directory(r.dir.string(), share).classes.at(0);
  EXPECT_EQ(d.input->remote.under_load, "share 0.25");
  EXPECT_EQ(parse_under_load("1", "--under-load").share, 1.0);
  for (const char* bad : {"often", "1.5", "-0.1", "0x0.8", "", " 0.5", "inf", "nan", "1e-1"}) {
    try {
      parse_under_load(bad, "--under-load");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--under-load: bad value '", 0), 0u) << e.what();
    }
  }
}

TEST(DecideUnderLoad, AShareOfTimeUnderLoadWeighsBothBoundByBound) {
  LoadedRun r(40, 30, 50, 0.25);
  const ClassDecision d = r.decide();
  ASSERT_TRUE(d.decidable) << d.reason;
  EXPECT_NEAR(d.input->remote.pct, 0.75 * 100.0 / 9.0 + 0.25 * 40, 1e-9);
  EXPECT_NEAR(*d.input->remote.lo_pct, 0.75 * 8.0 + 0.25 * 30, 1e-9);
  EXPECT_NEAR(*d.input->remote.hi_pct, 0.75 * 14.5 + 0.25 * 50, 1e-9);
  EXPECT_EQ(d.input->remote.condition, "quiet x 0.75 + membw-device-2 x 0.25");
  EXPECT_EQ(d.input->remote.under_load, "share 0.25");
  EXPECT_TRUE(d.input->remote.verdict.empty());  // a mixture has no verdict of its own
}

TEST(DecideUnderLoad, TheKeyIsCheckedWhereverItIsRead) {
  for (const json& bad : {json("often"), json(1.5), json(-0.1), json::array({0.3})}) {
    LoadedRun r(40, 30, 50, bad);
    try {
      r.decide();
      FAIL() << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("decision.under_load: expected worst, quiet, or the share of time under load"),
                std::string::npos) << e.what();
    }
  }
  try {
    parse_decision_yaml(YAML::Load("{job_length: 1h, gpus_per_job: 1, queue: {strict: 1m, prefer: 1m, any: 1m},\n"
                                   "  under_load: sometimes}"),
                        "c.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("c.yaml:2: decision.under_load: expected worst"), 0u) << e.what();
  }
  // Written to run.json's copy and read back the same.
  DecisionSpec s = parse_decision_json(json::parse(R"({"job_length": 60, "gpus_per_job": 1, "queue": {"strict": 1,
      "prefer": 1, "any": 1}, "under_load": 0.3})"), "x");
  ASSERT_TRUE(s.under_load.has_value());
  EXPECT_EQ(s.under_load->mode, UnderLoad::Mode::kShare);
  EXPECT_EQ(decision_to_json(parse_decision_json(decision_to_json(s), "y")), decision_to_json(s));
  EXPECT_FALSE(decision_to_json(parse_decision_json(json::parse(R"({"job_length": 60, "gpus_per_job": 1, "queue":
      {"strict": 1, "prefer": 1, "any": 1}})"), "z")).contains("under_load"));
}
