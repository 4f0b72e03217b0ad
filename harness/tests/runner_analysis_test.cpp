// analyze_run on hand-made trial lines: arm roles from placement flags, the family size, decisions final
// at their look, the table and summary.json round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <functional>

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
  const auto classes = analyze_run(two_arm_config(), rounds(20, 1.0, {"degenerate"}));
  const ClassAnalysis& c = classes.at(0);
  EXPECT_EQ(c.comparisons, 1);  // only unpinned is compared
  EXPECT_EQ(arm(c, "remote").role, "control");
  EXPECT_EQ(arm(c, "remote").verdict, "control");
  EXPECT_FALSE(arm(c, "remote").holm_adjusted_p.has_value());
  ASSERT_TRUE(c.noise_floor_pct.has_value());
  EXPECT_NEAR(*c.noise_floor_pct, std::max(std::fabs(arm(c, "remote").ratio_lo), std::fabs(arm(c, "remote").ratio_hi)), 1e-12);
  EXPECT_EQ(arm(c, "unpinned").verdict, "slower");
  EXPECT_TRUE(c.stop);  // every compared arm decided at the second look (the first is held: see below)
  EXPECT_EQ(c.stop_words, "decided at look 2 of 3 (20 rounds)");
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
  // 22 rounds: past look 2, which decided the 20% slowdown; the verdict keeps that look's rounds.
  const ClassAnalysis at22 = analyze_run(two_arm_config(), rounds(22, 1.0)).at(0);
  EXPECT_EQ(arm(at22, "unpinned").verdict, "slower");
  EXPECT_EQ(arm(at22, "unpinned").n_rounds, 20);  // the deciding look's rounds
  EXPECT_EQ(arm(at22, "unpinned").decided_look, 2);
  EXPECT_EQ(arm(at22, "unpinned").statistic_rounds, 22);  // the value beside it: every round
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

// Issue 26: a verdict, once its look decides it, is final; later rounds only add warnings, and m stays
// the m planned at the first look.
TEST(RunAnalysis, ALatePlacementFailureNeverWithdrawsADecidedVerdict) {
  const ExperimentConfig cfg = two_arm_config();
  // remote ~1% slower with wide noise: undecided at 20; unpinned 20% slower: decided at 20.
  auto t = rounds(30, 1.0);
  for (auto& tr : t)
    if (tr.arm == "remote") {
      const double v = tr.summary["median_ns"] * (1.01 + 0.03 * ((tr.round * 13) % 7 - 3) / 3.0);
      tr.summary = {{"median_ns", v}, {"p99_ns", v}, {"throughput_steps_s", 1e9 / v}};
      tr.step_ns = {v};
    }
  const ClassAnalysis before = analyze_run(cfg, t).at(0);
  ASSERT_EQ(arm(before, "unpinned").verdict, "slower");
  ASSERT_EQ(arm(before, "remote").verdict, "inconclusive");
  ASSERT_EQ(before.comparisons, 2);
  // Round 25: a placement of each arm fails, after unpinned was decided at look 2 (20 rounds).
  for (auto& tr : t)
    if (tr.round == 25 && tr.arm != "local") tr.flags = {"placement_failed"};
  const ClassAnalysis after = analyze_run(cfg, t).at(0);
  const ArmAnalysis& unpinned = arm(after, "unpinned");
  EXPECT_EQ(unpinned.role, "compared");
  EXPECT_EQ(unpinned.verdict, "slower");
  EXPECT_EQ(unpinned.decided_look, 2);
  EXPECT_EQ(unpinned.n_rounds, 20);
  ASSERT_EQ(unpinned.verdict_warnings.size(), 1u);
  EXPECT_NE(unpinned.verdict_warnings[0].find("after the deciding look (20 rounds)"), std::string::npos);
  // The undecided arm is unrealised now, but m is still the planned 2: no earlier look is re-read at a new level.
  EXPECT_EQ(arm(after, "remote").role, "unrealised");
  EXPECT_EQ(after.comparisons, 2);
  EXPECT_DOUBLE_EQ(after.look_confidence, before.look_confidence);
  EXPECT_DOUBLE_EQ(unpinned.ratio_lo, arm(before, "unpinned").ratio_lo);
  // A failure before the first look keeps the arm out of the family from the start.
  auto early = rounds(30, 1.0);
  for (auto& tr : early)
    if (tr.round == 3 && tr.arm == "remote") tr.flags = {"placement_failed"};
  EXPECT_EQ(analyze_run(cfg, early).at(0).comparisons, 1);
}

TEST(RunAnalysis, TheFirstLookIsHeldUntilDependenceCanBeExcluded) {
  // 10 rounds of a clear 20% slowdown: the widened CI would decide, but 10 rounds are too few effective rounds.
  const ClassAnalysis at10 = analyze_run(two_arm_config(), rounds(10, 1.0)).at(0);
  const ArmAnalysis& a = arm(at10, "unpinned");
  EXPECT_EQ(a.verdict, "inconclusive");
  EXPECT_TRUE(a.held);
  EXPECT_LT(a.effective_rounds, 10);
  EXPECT_EQ(a.stop_reason, "continue");
  EXPECT_FALSE(at10.stop);
  bool said = false;
  for (const auto& w : at10.warnings) said = said || w.find("unpinned: held at this look") != std::string::npos;
  EXPECT_TRUE(said);
  // The summary says so, and its reader keeps it.
  const nlohmann::json j = summary_to_json(RunSummary{{at10}, false, 30});
  EXPECT_EQ(j["classes"][0]["arms"][1]["held"], true);
}

TEST(RunAnalysis, AControlThatDiffersFromTheBaselineFailsItsAaCheck) {
  const ClassAnalysis c = analyze_run(two_arm_config(), rounds(20, 1.03, {"degenerate"})).at(0);
  const ArmAnalysis& remote = arm(c, "remote");
  EXPECT_EQ(remote.role, "control");
  EXPECT_EQ(remote.aa_check, "failed");
  // A control carries no verdict fields.
  EXPECT_FALSE(remote.detectable_pct.has_value());
  EXPECT_FALSE(remote.decided_look.has_value());
  EXPECT_EQ(remote.stop_reason, "");
  bool warned = false;
  for (const auto& w : c.warnings) warned = warned || w.rfind("failed A/A check: remote", 0) == 0;
  EXPECT_TRUE(warned);
  EXPECT_NE(render_analysis_table({c}, true).find("warning: failed A/A check"), std::string::npos);
  // A control within noise of the baseline passes.
  EXPECT_EQ(arm(analyze_run(two_arm_config(), rounds(20, 1.0, {"degenerate"})).at(0), "remote").aa_check, "passed");
}

TEST(RunAnalysis, TheTableSaysWhichRoundsAreBehindEachFigure) {
  const auto classes = analyze_run(two_arm_config(), rounds(22, 1.0));
  const std::string table = render_analysis_table(classes, true, /*wide=*/true);
  EXPECT_NE(table.find("ratio rounds"), std::string::npos) << table;
  const ArmAnalysis& a = arm(classes.at(0), "unpinned");
  // One-sided detectable effects: the faster side is smaller in percent than the slower side.
  ASSERT_TRUE(a.detectable_pct && a.detectable_below_pct);
  EXPECT_LT(*a.detectable_below_pct, 0);
  EXPECT_LT(-*a.detectable_below_pct, *a.detectable_pct);
  EXPECT_NE(table.find(fmt::format("{:+.1f}/{:+.1f}%", *a.detectable_below_pct, *a.detectable_pct)), std::string::npos)
      << table;
  // The default layout: the rounds behind the ratio only where they differ from the value's, explained.
  const std::string compact = render_analysis_table(classes, true);
  const std::string both = fmt::format("{}/{}", a.statistic_rounds, a.n_rounds);
  EXPECT_EQ(compact.find(both) != std::string::npos, a.statistic_rounds != a.n_rounds) << compact;
  EXPECT_EQ(compact.find("rounds a/b:") != std::string::npos, a.statistic_rounds != a.n_rounds) << compact;
  EXPECT_NE(compact.find(fmt::format("{:+.1f}/{:+.1f}", *a.detectable_below_pct, *a.detectable_pct)), std::string::npos);
}

// summary.json's reader refuses an arm whose fields contradict each other, naming the field.
TEST(RunAnalysis, TheSummaryReaderRefusesSelfContradictions) {
  const RunSummary s{analyze_run(two_arm_config(), rounds(20, 1.0, {"degenerate"})), true, 60};
  const nlohmann::json good = summary_to_json(s);
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j["classes"][0]["arms"][1]);  // unpinned: slower, decided
    edit(j["classes"][0]["arms"][2]);  // remote: the control
    try {
      summary_from_json(j, "summary.json", "fix");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused([](nlohmann::json& a) { if (a["role"] == "compared") a["stop_reason"] = "continue"; })
                .find("classes[0].arms[1].stop_reason"), std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& a) { if (a["role"] == "control") a["detectable_pct"] = 4.2; })
                .find("classes[0].arms[2].detectable_pct"), std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& a) { if (a["role"] == "control") a["realised"] = true; })
                .find("classes[0].arms[2].realised"), std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& a) { if (a["role"] == "compared") a["aa_check"] = "failed"; })
                .find("classes[0].arms[1].aa_check"), std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& a) { if (a["role"] == "compared") a["decided_look"] = 7; })
                .find("classes[0].arms[1].decided_look"), std::string::npos);
  EXPECT_EQ(refused([](nlohmann::json&) {}), "accepted");
  // The fields of issue 26 may be absent or null (summaries written before them).
  EXPECT_EQ(refused([](nlohmann::json& a) {
              for (const char* key : {"statistic_rounds", "verdict_warnings", "held", "effective_rounds", "aa_check"})
                a[key] = nullptr;
            }), "accepted");
  EXPECT_EQ(refused([](nlohmann::json& a) {
              for (const char* key : {"statistic_rounds", "verdict_warnings", "held", "decided_look", "aa_check"})
                a.erase(key);
            }), "accepted");
}

}  // namespace
}  // namespace placebench::harness
