// analyze_run on hand-made trial lines: arm roles from placement flags, the family size, decisions final
// at their look, the table and summary.json round trip.
#include <gtest/gtest.h>

#include <cmath>

#include "placebench/harness/runner/analysis.h"

namespace placebench::harness {
namespace {

ExperimentConfig two_arm_config() {
  ExperimentConfig c;
  c.min_rounds = 10;
  c.max_rounds = 30;
  c.looks = 3;  // looks at 10, 20, 30
  ClassConfig k;
  k.name = "c";
  k.baseline = Arm::kLocal;
  k.compare = {Arm::kUnpinned, Arm::kRemote};
  k.margin_pct = 2;
  c.classes.push_back(k);
  return c;
}

// One trial record; `value` is its median (ns).
TrialRecord trial(const std::string& arm, int round, double value, std::vector<std::string> flags = {}) {
  TrialRecord t;
  t.class_name = "c";
  t.arm = arm;
  t.round = round;
  t.flags = std::move(flags);
  t.step_ns = {value};
  t.summary = {{"median_ns", value}, {"p99_ns", value}, {"throughput_steps_s", 1e9 / value}};
  return t;
}

// Rounds 0..n-1: local ~1000, unpinned 20% slower, remote as `remote_factor`; small deterministic noise.
std::vector<TrialRecord> rounds(int n, double remote_factor, std::vector<std::string> remote_flags = {}) {
  std::vector<TrialRecord> t;
  for (int r = 0; r < n; ++r) {
    const double noise = 1 + 0.003 * ((r * 7) % 5 - 2);
    t.push_back(trial("local", r, 1000 * noise));
    t.push_back(trial("unpinned", r, 1200 * (1 + 0.002 * ((r * 3) % 4))));
    t.push_back(trial("remote", r, 1000 * remote_factor * (1 + 0.002 * ((r * 5) % 3)), remote_flags));
  }
  return t;
}

const ArmAnalysis& arm(const ClassAnalysis& c, const std::string& name) {
  for (const auto& a : c.arms)
    if (a.arm == name) return a;
  throw std::runtime_error("no arm " + name);
}

TEST(RunAnalysis, ADegenerateArmIsAControlAndLeavesTheFamily) {
  const auto classes = analyze_run(two_arm_config(), rounds(10, 1.0, {"degenerate"}));
  const ClassAnalysis& c = classes.at(0);
  EXPECT_EQ(c.comparisons, 1);  // only unpinned is compared
  EXPECT_EQ(arm(c, "remote").role, "control");
  EXPECT_EQ(arm(c, "remote").verdict, "control");
  EXPECT_FALSE(arm(c, "remote").holm_adjusted_p.has_value());
  ASSERT_TRUE(c.noise_floor_pct.has_value());
  EXPECT_NEAR(*c.noise_floor_pct, std::max(std::fabs(arm(c, "remote").ratio_lo), std::fabs(arm(c, "remote").ratio_hi)), 1e-12);
  EXPECT_EQ(arm(c, "unpinned").verdict, "slower");
  EXPECT_TRUE(c.stop);  // every compared arm decided at the first look
  EXPECT_EQ(c.stop_words, "decided at look 1 of 3 (10 rounds)");
  const std::string table = render_analysis_table(classes, true);
  EXPECT_NE(table.find("noise floor: identical placements differ by up to"), std::string::npos) << table;
  EXPECT_NE(table.find("remote is degenerate here"), std::string::npos) << table;
}

TEST(RunAnalysis, APlacementNotVerifiedIsUnrealisedWhateverItsNumbers) {
  auto t = rounds(10, 1.5);
  t[2].flags = {"placement_partial"};  // remote, round 0
  const ClassAnalysis c = analyze_run(two_arm_config(), t).at(0);
  EXPECT_EQ(arm(c, "remote").role, "unrealised");
  EXPECT_EQ(arm(c, "remote").verdict, "unrealised");  // 50% slower, but not under its placement
  EXPECT_NE(arm(c, "remote").unrealised_reason.find("1 of 10"), std::string::npos);
  EXPECT_EQ(c.comparisons, 1);
}

TEST(RunAnalysis, AnUnrealisedBaselineLeavesNothingToDecide) {
  auto t = rounds(10, 1.0);
  t[0].flags = {"placement_failed"};  // local, round 0
  const ClassAnalysis c = analyze_run(two_arm_config(), t).at(0);
  EXPECT_EQ(arm(c, "unpinned").role, "unrealised");
  EXPECT_NE(arm(c, "unpinned").unrealised_reason.find("the baseline local is"), std::string::npos);
  EXPECT_EQ(arm(c, "unpinned").verdict, "unrealised");
}

TEST(RunAnalysis, VerdictsWaitForAPlannedLookAndStayFinal) {
  // 12 rounds: past look 1, which decided the 20% slowdown; the verdict keeps that look's rounds.
  const ClassAnalysis at12 = analyze_run(two_arm_config(), rounds(12, 1.0)).at(0);
  EXPECT_EQ(arm(at12, "unpinned").verdict, "slower");
  EXPECT_EQ(arm(at12, "unpinned").n_rounds, 10);  // the deciding look's rounds
  // Before the first look nothing is decided, however clear.
  const ClassAnalysis at8 = analyze_run(two_arm_config(), rounds(8, 1.0)).at(0);
  EXPECT_EQ(arm(at8, "unpinned").verdict, "inconclusive");
  EXPECT_EQ(at8.stop_reason, "before_first_look");
  EXPECT_FALSE(at8.stop);
}

TEST(RunAnalysis, TheSummaryRoundTripsThroughItsReader) {
  const RunSummary s{analyze_run(two_arm_config(), rounds(10, 1.0, {"degenerate"})), true, 30};
  const nlohmann::json j = summary_to_json(s);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(summary_to_json(summary_from_json(j, "summary.json", "fix")), j);
}

}  // namespace
}  // namespace placebench::harness
