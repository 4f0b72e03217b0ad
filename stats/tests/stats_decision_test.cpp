// Decisions: the verdict table, Holm's step-down, Bonferroni levels, the stopping rule and one look.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "placebench/stats/group_sequential.h"
#include "placebench/stats/sequential.h"
#include "placebench/stats/verdict.h"

using namespace placebench::stats;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

struct VerdictCase {
  double lo, hi, margin;
  bool higher_is_better;
  Verdict expected;
};

TEST(StatsVerdict, Table) {
  const std::vector<VerdictCase> cases = {
      // time-like: smaller is faster
      {-12.0, -5.0, 2.0, false, Verdict::kFaster},
      {-12.0, -2.0, 2.0, false, Verdict::kInconclusive},  // hi == -m: not entirely below -m
      {-12.0, -2.0001, 2.0, false, Verdict::kFaster},
      {3.0, 9.0, 2.0, false, Verdict::kSlower},
      {2.0, 9.0, 2.0, false, Verdict::kInconclusive},     // lo == +m
      {-1.5, 1.9, 2.0, false, Verdict::kEquivalent},
      {-2.0, 2.0, 2.0, false, Verdict::kEquivalent},      // boundaries belong to the equivalence region
      {-2.5, 1.0, 2.0, false, Verdict::kInconclusive},
      {-1.0, 2.5, 2.0, false, Verdict::kInconclusive},
      {-5.0, 5.0, 2.0, false, Verdict::kInconclusive},
      {0.0, 0.0, 0.0, false, Verdict::kEquivalent},       // zero margin: only a degenerate CI at 0
      {-0.1, 0.1, 0.0, false, Verdict::kInconclusive},
      {0.1, 0.3, 0.0, false, Verdict::kSlower},
      // throughput-like: larger is faster
      {5.0, 12.0, 2.0, true, Verdict::kFaster},
      {-12.0, -5.0, 2.0, true, Verdict::kSlower},
      {-1.0, 1.0, 2.0, true, Verdict::kEquivalent},
      {-3.0, 1.0, 2.0, true, Verdict::kInconclusive},
      {-kInf, kInf, 2.0, false, Verdict::kInconclusive},
  };
  for (const auto& c : cases)
    EXPECT_EQ(classify_verdict(c.lo, c.hi, c.margin, c.higher_is_better), c.expected)
        << "[" << c.lo << ", " << c.hi << "] m=" << c.margin << " higher_is_better=" << c.higher_is_better;
  EXPECT_EQ(to_string(Verdict::kFaster), "faster");
  EXPECT_EQ(to_string(Verdict::kInconclusive), "inconclusive");
}

TEST(StatsVerdict, RejectsBadInput) {
  EXPECT_THROW(classify_verdict(1.0, -1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(classify_verdict(NAN, 1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(classify_verdict(-1.0, 1.0, -2.0), std::invalid_argument);
  EXPECT_THROW(classify_verdict(-1.0, 1.0, kInf), std::invalid_argument);
}

TEST(StatsHolm, StepDownDecisionsAndAdjustedPValues) {
  // Sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 -> max 0.06).
  // Tests: 0.005 <= 0.0125 yes, 0.01 <= 0.05/3 yes, 0.03 <= 0.025 no -> stop.
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  const HolmAdjustment h = holm_adjust(p, 0.05);
  const std::vector<double> adjusted{0.03, 0.06, 0.06, 0.02};
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(h.adjusted_p[i], adjusted[i], 1e-15) << i;
  EXPECT_EQ(h.reject, (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(h.step, (std::vector<int>{2, 4, 3, 1}));
  EXPECT_NEAR(h.step_confidence[3], 1 - 0.05 / 4, 1e-15);
  EXPECT_NEAR(h.step_confidence[1], 0.95, 1e-15);
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_EQ(h.reject[i], h.adjusted_p[i] <= 0.05) << i;
}

TEST(StatsHolm, StopsAtTheFirstFailureEvenIfALaterPValueWouldPass) {
  // 0.02 > 0.05/3 fails at step 1, so nothing is rejected although 0.03 <= 0.05/2 and 0.04 <= 0.05.
  const HolmAdjustment h = holm_adjust(std::vector<double>{0.04, 0.02, 0.03}, 0.05);
  EXPECT_EQ(h.reject, (std::vector<bool>{false, false, false}));
  EXPECT_NEAR(h.adjusted_p[1], 0.06, 1e-15);
  EXPECT_NEAR(h.adjusted_p[2], 0.06, 1e-15);  // monotone: max(0.06, 2 * 0.03)
  EXPECT_NEAR(h.adjusted_p[0], 0.06, 1e-15);
}

TEST(StatsHolm, SingleClassAndClampingAndErrors) {
  const HolmAdjustment one = holm_adjust(std::vector<double>{0.049}, 0.05);
  EXPECT_TRUE(one.reject[0]);
  EXPECT_DOUBLE_EQ(one.adjusted_p[0], 0.049);
  const HolmAdjustment big = holm_adjust(std::vector<double>{0.9, 0.8}, 0.05);
  EXPECT_DOUBLE_EQ(big.adjusted_p[0], 1.0);
  EXPECT_THROW(holm_adjust(std::vector<double>{}, 0.05), std::invalid_argument);
  EXPECT_THROW(holm_adjust(std::vector<double>{1.5}, 0.05), std::invalid_argument);
  EXPECT_THROW(holm_adjust(std::vector<double>{0.5}, 1.0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(bonferroni_confidence(0.95, 5), 0.99);
  EXPECT_THROW(bonferroni_confidence(0.95, 0), std::invalid_argument);
}

TEST(StatsSequential, PocockConstantsMatchPublishedTables) {
  // Jennison & Turnbull (2000), Table 2.1 (alpha 0.05) and Pocock (1977): two-sided C_P(K, alpha), equal spacing.
  const std::vector<int> two{10, 20}, four{10, 20, 30, 40}, five{5, 10, 15, 20, 25};
  EXPECT_NEAR(pocock_boundary(two, 0.05), 2.178, 0.002);
  EXPECT_NEAR(pocock_boundary(four, 0.05), 2.361, 0.002);
  EXPECT_NEAR(pocock_boundary(five, 0.05), 2.413, 0.002);
  EXPECT_NEAR(pocock_boundary(five, 0.01), 2.986, 0.002);  // Pocock (1977), Table 1
  const std::vector<int> one{12};
  EXPECT_NEAR(pocock_boundary(one, 0.05), 1.95996, 1e-4);
  // The boundary's crossing probability is alpha; a higher boundary crosses less often.
  EXPECT_NEAR(crossing_probability(four, pocock_boundary(four, 0.05)), 0.05, 1e-6);
  EXPECT_LT(crossing_probability(four, 2.6), 0.05);
  // Repeated p-values: at least the nominal p, and alpha exactly at the boundary's nominal level.
  const double nominal = 1 - pocock_look_confidence(four, 0.05);
  EXPECT_NEAR(repeated_p_value(four, nominal), 0.05, 1e-6);
  EXPECT_GE(repeated_p_value(four, 0.001), 0.001);
  EXPECT_THROW(pocock_boundary(std::vector<int>{10, 10}, 0.05), std::invalid_argument);
  EXPECT_THROW(pocock_boundary(four, 1.0), std::invalid_argument);
}

TEST(StatsSequential, PlannedLooksAndTheFamilySize) {
  EXPECT_EQ(planned_look_rounds(10, 60, 6), (std::vector<int>{10, 20, 30, 40, 50, 60}));
  EXPECT_EQ(planned_look_rounds(3, 4, 6), (std::vector<int>{3, 4}));
  EXPECT_EQ(planned_look_rounds(5, 5, 3), (std::vector<int>{5}));
  EXPECT_EQ(planned_look_rounds(10, 40, 1), (std::vector<int>{40}));
  EXPECT_THROW(planned_look_rounds(0, 30, 3), std::invalid_argument);
  SequentialPlan one, two;
  two.comparisons = 2;
  // Each comparison gets alpha / m: two comparisons look at a higher confidence than one.
  EXPECT_GT(look_confidence(two), look_confidence(one));
  EXPECT_NEAR(look_boundary_z(two), pocock_boundary(two.looks, 0.025), 1e-12);
  two.comparisons = 0;
  EXPECT_THROW(look_confidence(two), std::invalid_argument);
}

TEST(StatsSequential, VerdictsOnlyAtPlannedLooks) {
  std::vector<double> base, arm;
  for (int r = 0; r < 21; ++r) {
    base.push_back(10.0 + 0.1 * (r % 7));
    arm.push_back(base.back() * (1.20 + 0.004 * ((r * 7) % 5)));
  }
  SequentialPlan plan;
  plan.looks = {10, 20, 30};
  auto first = [&](int n) { return std::vector<double>(base.begin(), base.begin() + n); };
  auto first_arm = [&](int n) { return std::vector<double>(arm.begin(), arm.begin() + n); };
  const Look at_look = evaluate_look(first(20), first_arm(20), plan);
  EXPECT_TRUE(at_look.at_planned_look);
  EXPECT_EQ(at_look.look_index, 2);
  EXPECT_EQ(at_look.verdict, Verdict::kSlower);
  EXPECT_EQ(at_look.reason, StopReason::kDecided);
  const Look between = evaluate_look(first(21), first_arm(21), plan);  // a clear effect, but not a look
  EXPECT_EQ(between.verdict, Verdict::kInconclusive);
  EXPECT_EQ(between.reason, StopReason::kContinue);
  const Look early = evaluate_look(first(8), first_arm(8), plan);
  EXPECT_EQ(early.reason, StopReason::kBeforeFirstLook);
  EXPECT_EQ(stop_words(StopReason::kDecided, 20, plan.looks), "decided at look 2 of 3 (20 rounds)");
  EXPECT_EQ(stop_words(StopReason::kMaxRounds, 30, plan.looks), "max rounds spent (30), undecided");
}

TEST(StatsSequential, DependentRoundsAreFlaggedAndWidened) {
  std::vector<double> independent, drifting;
  for (int r = 0; r < 30; ++r) {
    independent.push_back(((r * 37) % 11) / 100.0 - 0.05);
    drifting.push_back(0.05 * std::sin(r / 6.0));  // slow drift: neighbours alike
  }
  const Dependence none = round_dependence(independent);
  ASSERT_TRUE(none.lag1.has_value());
  EXPECT_LT(*none.lag1, 0);
  EXPECT_FALSE(none.flagged);
  // Even rounds that look independent get the correction for what 30 rounds cannot exclude: rho up to
  // z_0.90 sqrt(1 / 30).
  EXPECT_NEAR(none.rho_upper, 1.2815515655446004 * std::sqrt(1.0 / 30), 1e-9);
  EXPECT_NEAR(none.ci_inflation, std::sqrt((1 + none.rho_upper) / (1 - none.rho_upper)), 1e-12);
  EXPECT_NEAR(none.effective_rounds, 30 * (1 - none.rho_upper) / (1 + none.rho_upper), 1e-9);
  EXPECT_TRUE(none.estimable());
  const Dependence dep = round_dependence(drifting);
  ASSERT_TRUE(dep.lag1.has_value());
  EXPECT_GT(*dep.lag1, 0.8);
  EXPECT_TRUE(dep.flagged);
  EXPECT_NEAR(dep.ci_inflation, std::sqrt((1 + 0.9) / (1 - 0.9)), 1e-12);  // rho capped at 0.9
  EXPECT_FALSE(dep.estimable());
  const Dependence few = round_dependence(std::vector<double>{0.1, 0.2, 0.3});
  EXPECT_FALSE(few.lag1.has_value());  // too few rounds: the worst case the correction allows
  EXPECT_NEAR(few.ci_inflation, std::sqrt(19.0), 1e-12);
  EXPECT_FALSE(few.estimable());
}

// 10 rounds can never exclude dependence (rho_upper >= z_0.90 / sqrt(10) leaves < 10 effective rounds):
// a look there is held, however clear the effect.
TEST(StatsSequential, ALookWithTooFewEffectiveRoundsIsHeld) {
  std::vector<double> base, arm;
  for (int r = 0; r < 10; ++r) {
    base.push_back(10.0 + 0.1 * (r % 2));
    arm.push_back(base.back() * (1.30 + 0.01 * (r % 2 ? 1 : -1)));
  }
  SequentialPlan plan;
  plan.looks = {10, 20};
  const Look look = evaluate_look(base, arm, plan);
  EXPECT_TRUE(look.comparison.log_ratio.coverage_met);
  EXPECT_GT(look.comparison.ratio_pct.lower, 2.0);  // the widened CI is beyond the margin ...
  EXPECT_TRUE(look.held);                           // ... but held
  EXPECT_EQ(look.verdict, Verdict::kInconclusive);
  EXPECT_EQ(look.reason, StopReason::kContinue);
}

TEST(StatsSequential, DetectableEffectShrinksWithRoundsAndGrowsWithNoise) {
  SequentialPlan short_plan, long_plan;
  short_plan.looks = {10, 20};
  long_plan.looks = {10, 20, 40, 80};
  const Detectable quiet = *detectable_effect_pct(long_plan, 0.01), noisy = *detectable_effect_pct(long_plan, 0.04);
  EXPECT_GT(quiet.above_pct, long_plan.margin_pct);
  EXPECT_LT(quiet.below_pct, -long_plan.margin_pct);
  EXPECT_GT(noisy.above_pct, quiet.above_pct);
  EXPECT_GT(detectable_effect_pct(short_plan, 0.04)->above_pct, noisy.above_pct);
  EXPECT_FALSE(detectable_effect_pct(long_plan, 0.0).has_value());
  // One-sided, each side reaching equally far past its margin on the log scale:
  // log(1 + above) - log(1 + m) = log(1 - m) - log(1 + below).
  const double m = long_plan.margin_pct / 100;
  EXPECT_NEAR(std::log1p(noisy.above_pct / 100) - std::log1p(m), std::log1p(-m) - std::log1p(noisy.below_pct / 100), 1e-12);
  EXPECT_LT(-noisy.below_pct, noisy.above_pct);  // the faster side is smaller in percent
}

TEST(StatsSequential, LookWithTooFewRoundsForItsConfidenceIsInconclusive) {
  // Every round 20% faster, but 5 rounds cannot give a 99.8% signed-rank CI (2/2^5 > 0.002).
  const std::vector<double> base{10, 11, 12, 10.5, 11.5}, arm{8, 8.8, 9.6, 8.4, 9.2};
  SequentialPlan plan;
  plan.looks = {5, 10};
  plan.comparisons = 2;
  const Look look = evaluate_look(base, arm, plan);
  EXPECT_TRUE(look.at_planned_look);
  EXPECT_FALSE(look.comparison.log_ratio.coverage_met);
  EXPECT_EQ(look.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(std::isinf(look.comparison.ratio_pct.half_width));
  EXPECT_EQ(look.reason, StopReason::kContinue);
}

TEST(StatsSequential, LookDecidesOnceTheCiClearsTheMargin) {
  std::vector<double> base, arm;
  for (int r = 0; r < 24; ++r) {
    base.push_back(10.0 + 0.1 * r);
    arm.push_back((10.0 + 0.1 * r) * (0.85 + 0.004 * ((r * 7) % 5)));
  }
  SequentialPlan plan;
  plan.looks = {24, 48};
  const Look look = evaluate_look(base, arm, plan);
  EXPECT_TRUE(look.comparison.log_ratio.coverage_met);
  EXPECT_TRUE(look.dependence.estimable());
  EXPECT_EQ(look.verdict, Verdict::kFaster);
  EXPECT_EQ(look.reason, StopReason::kDecided);
  EXPECT_LT(look.comparison.ratio_pct.upper, -2.0);
  SequentialPlan throughput = plan;
  throughput.higher_is_better = true;
  EXPECT_EQ(evaluate_look(base, arm, throughput).verdict, Verdict::kSlower);
}
