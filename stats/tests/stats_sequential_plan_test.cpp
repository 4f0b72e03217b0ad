// The sequential plan driven over a class's rounds: decisions final at their look, held looks, the
// realised rounds that bound a decision, repeated p-values, the family and the class stop rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "placebench/stats/group_sequential.h"
#include "placebench/stats/rank_tests.h"
#include "placebench/stats/sequential_plan.h"

using namespace placebench::stats;

namespace {

// Rounds 0..n-1 of a baseline near 10 and an arm `factor` times it, with a small noise whose lag-1
// autocorrelation is negative (a period of 5), so that the dependence check lets 20 rounds decide.
struct Rounds {
  std::vector<double> base, arm;
  void add(int n, double factor) {
    for (int i = 0; i < n; ++i) {
      const int r = static_cast<int>(base.size());
      base.push_back(10.0 + 0.1 * r);
      arm.push_back(base.back() * (factor + 0.004 * ((r * 7) % 5)));
    }
  }
  ArmRounds view(std::size_t realised_rounds, bool realised = true) const {
    return ArmRounds{base, arm, realised_rounds, realised};
  }
  std::vector<double> log_ratios() const {
    std::vector<double> d;
    for (std::size_t i = 0; i < arm.size(); ++i) d.push_back(std::log(arm[i] / base[i]));
    return d;
  }
};

SequentialPlan plan_10_20_30() {
  SequentialPlan plan;
  plan.looks = {10, 20, 30};
  return plan;
}

ArmDecision undecided(bool realised) {
  ArmDecision d;
  d.realised = realised;
  d.reason = StopReason::kContinue;
  return d;
}

ArmDecision decided() {
  ArmDecision d;
  d.realised = true;
  d.reason = StopReason::kDecided;
  return d;
}

}  // namespace

TEST(StatsSequentialPlan, AVerdictDecidedAtALookStaysWithThatLook) {
  Rounds r;
  r.add(20, 1.20);  // 20% slower: decided at look 2 (20 rounds)
  r.add(10, 1.00);  // then as fast as the baseline
  const ArmDecision d = decide_arm(plan_10_20_30(), r.view(r.arm.size()));
  ASSERT_TRUE(d.decided_look.has_value());
  EXPECT_EQ(*d.decided_look, 2);
  ASSERT_TRUE(d.look.has_value());
  EXPECT_EQ(d.look->rounds, 20);
  EXPECT_EQ(d.look->verdict, Verdict::kSlower);
  EXPECT_EQ(d.reason, StopReason::kDecided);
  EXPECT_TRUE(d.stop);
  EXPECT_TRUE(d.realised);
  // The look shown is the deciding look's, not one over every round.
  const Look at_20 = evaluate_look(std::span(r.base).first(20), std::span(r.arm).first(20), plan_10_20_30());
  EXPECT_DOUBLE_EQ(d.look->comparison.ratio_pct.lower, at_20.comparison.ratio_pct.lower);
  EXPECT_DOUBLE_EQ(d.look->comparison.ratio_pct.upper, at_20.comparison.ratio_pct.upper);
  // The repeated p is taken at the looks up to the deciding one; the dependence over every round.
  EXPECT_EQ(d.repeated_p, sequential_repeated_p({10, 20, 30}, r.log_ratios(), 20));
  EXPECT_EQ(d.all_rounds.lag1, round_dependence(r.log_ratios()).lag1);
}

TEST(StatsSequentialPlan, ALookWithTooFewEffectiveRoundsIsHeld) {
  Rounds r;
  r.add(10, 1.30);
  const ArmDecision d = decide_arm(plan_10_20_30(), r.view(10));
  EXPECT_FALSE(d.decided_look.has_value());
  ASSERT_TRUE(d.look.has_value());
  EXPECT_TRUE(d.look->held);
  EXPECT_EQ(d.look->verdict, Verdict::kInconclusive);
  EXPECT_EQ(d.reason, StopReason::kContinue);
  EXPECT_FALSE(d.stop);
}

TEST(StatsSequentialPlan, OnlyLooksWhileRealisedCanDecide) {
  Rounds r;
  r.add(30, 1.20);
  // Realised for 15 rounds only: look 2 (20 rounds) cannot decide it; it gets no verdict and stops.
  const ArmDecision lost = decide_arm(plan_10_20_30(), r.view(15, false));
  EXPECT_FALSE(lost.realised);
  EXPECT_FALSE(lost.decided_look.has_value());
  EXPECT_FALSE(lost.repeated_p.has_value());
  EXPECT_TRUE(lost.stop);
  ASSERT_TRUE(lost.look.has_value());
  EXPECT_EQ(lost.look->rounds, 30);  // the comparison over every round is still shown
  // Realised through look 2: decided there, whatever later rounds did to its placement.
  const ArmDecision kept = decide_arm(plan_10_20_30(), r.view(20, false));
  EXPECT_TRUE(kept.realised);
  EXPECT_EQ(kept.decided_look, 2);
  EXPECT_EQ(kept.reason, StopReason::kDecided);
  EXPECT_TRUE(kept.repeated_p.has_value());
}

TEST(StatsSequentialPlan, BelowTwoRoundsNothingIsCompared) {
  Rounds r;
  r.add(1, 1.20);
  const ArmDecision d = decide_arm(plan_10_20_30(), r.view(1));
  EXPECT_FALSE(d.look.has_value());
  EXPECT_TRUE(d.realised);
  EXPECT_EQ(d.reason, StopReason::kBeforeFirstLook);
  EXPECT_FALSE(d.stop);
  EXPECT_FALSE(decide_arm(plan_10_20_30(), r.view(0, false)).stop);
}

TEST(StatsSequentialPlan, RepeatedPFromTheSmallestNominalPAtTheLooksReached) {
  Rounds r;
  r.add(30, 1.05);
  const std::vector<double> d = r.log_ratios();
  const std::vector<int> looks = {10, 20, 30};
  const double p10 = wilcoxon_signed_rank(std::span(d).first(10)).p_value;
  const double p20 = wilcoxon_signed_rank(std::span(d).first(20)).p_value;
  EXPECT_FALSE(sequential_repeated_p(looks, d, 9).has_value());
  EXPECT_FALSE(sequential_repeated_p(looks, std::span(d).first(9), 30).has_value());
  EXPECT_DOUBLE_EQ(*sequential_repeated_p(looks, d, 19), repeated_p_value(looks, p10));
  EXPECT_DOUBLE_EQ(*sequential_repeated_p(looks, d, 25), repeated_p_value(looks, std::min(p10, p20)));
  EXPECT_DOUBLE_EQ(*sequential_repeated_p(looks, std::span(d).first(25), 30), repeated_p_value(looks, std::min(p10, p20)));
  const double p30 = wilcoxon_signed_rank(d).p_value;
  EXPECT_DOUBLE_EQ(*sequential_repeated_p(looks, d, 30), repeated_p_value(looks, std::min({p10, p20, p30})));
  EXPECT_GE(*sequential_repeated_p(looks, d, 30), std::min({p10, p20, p30}));  // never below the nominal p
}

TEST(StatsSequentialPlan, TheFamilyIsRealisedAtTheFirstLook) {
  Rounds r;
  r.add(30, 1.0);
  EXPECT_TRUE(in_planned_family({10, 20}, r.view(10, false)));   // lost after the first look: still counted
  EXPECT_FALSE(in_planned_family({10, 20}, r.view(9, false)));
  Rounds few;
  few.add(4, 1.0);
  EXPECT_TRUE(in_planned_family({10, 20}, few.view(4)));         // every round before the first look
  EXPECT_FALSE(in_planned_family({10, 20}, few.view(3, false)));
}

TEST(StatsSequentialPlan, TheClassStopRule) {
  const std::vector<int> looks = {10, 20, 30};
  ClassDecision all;
  all.any_realised = true;
  all.arms = {decided(), undecided(false)};  // an arm that is not realised waits for nothing
  ClassDecision open = all;
  open.arms.push_back(undecided(true));
  EXPECT_EQ(class_stop_reason(looks, 9, all), StopReason::kBeforeFirstLook);
  EXPECT_EQ(class_stop_reason(looks, 20, all), StopReason::kDecided);
  EXPECT_EQ(class_stop_reason(looks, 25, all), StopReason::kContinue);   // only at a planned look
  EXPECT_EQ(class_stop_reason(looks, 20, open), StopReason::kContinue);
  EXPECT_EQ(class_stop_reason(looks, 30, open), StopReason::kMaxRounds);
  EXPECT_EQ(class_stop_reason(looks, 35, open), StopReason::kMaxRounds);
  ClassDecision none;
  none.arms = {undecided(false)};
  EXPECT_EQ(class_stop_reason(looks, 10, none), StopReason::kDecided);    // nothing to decide
  EXPECT_EQ(class_stop_reason(looks, 15, none), StopReason::kContinue);
  EXPECT_TRUE(stops(StopReason::kDecided));
  EXPECT_TRUE(stops(StopReason::kMaxRounds));
  EXPECT_FALSE(stops(StopReason::kContinue));
  EXPECT_FALSE(stops(StopReason::kBeforeFirstLook));
}

TEST(StatsSequentialPlan, AClassStopsOnceEveryRealisedArmIsDecided) {
  Rounds slower, same;
  slower.add(20, 1.20);
  same.add(20, 1.00);
  const std::vector<ArmRounds> arms = {slower.view(20), same.view(20)};
  const ClassDecision c = decide_class(plan_10_20_30(), 20, arms);
  ASSERT_EQ(c.arms.size(), 2u);
  EXPECT_TRUE(c.any_realised);
  EXPECT_EQ(c.arms[0].look->verdict, Verdict::kSlower);
  EXPECT_EQ(c.arms[1].look->verdict, Verdict::kEquivalent);
  EXPECT_EQ(c.reason, StopReason::kDecided);
  EXPECT_TRUE(c.stop);
  const ClassDecision early = decide_class(plan_10_20_30(), 10, std::vector<ArmRounds>{Rounds{}.view(0)});
  EXPECT_EQ(early.reason, StopReason::kContinue);
  EXPECT_FALSE(early.stop);
}
