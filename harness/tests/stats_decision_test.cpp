// Decisions: the verdict table, Holm's step-down, Bonferroni levels, the stopping rule and one look.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "placebench/harness/stats/sequential.h"
#include "placebench/harness/stats/verdict.h"

using namespace placebench::harness::stats;

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

TEST(StatsSequential, PerLookConfidence) {
  EXPECT_DOUBLE_EQ(per_look_confidence(0.95, 1), 0.95);
  EXPECT_NEAR(per_look_confidence(0.95, 26), 1 - 0.05 / 26, 1e-15);
  EXPECT_EQ(planned_looks(5, 30), 26);
  SequentialPlan plan;
  plan.classes = 2;
  EXPECT_NEAR(look_confidence(plan), 1 - 0.05 / 2 / 26, 1e-15);
  EXPECT_THROW(per_look_confidence(0.95, 0), std::invalid_argument);
  EXPECT_THROW(per_look_confidence(1.0, 3), std::invalid_argument);
  EXPECT_THROW(planned_looks(0, 30), std::invalid_argument);
}

TEST(StatsSequential, StoppingRuleTable) {
  const auto stop = [](int done, Verdict v, double half) { return should_stop(done, 5, 30, v, half, 3.0); };
  EXPECT_EQ(stop(3, Verdict::kFaster, 0.5).reason, StopReason::kMinRounds);  // too early, whatever the CI says
  EXPECT_FALSE(stop(3, Verdict::kFaster, 0.5).stop);
  EXPECT_EQ(stop(5, Verdict::kFaster, 9.0).reason, StopReason::kDecided);
  EXPECT_EQ(stop(6, Verdict::kSlower, 9.0).reason, StopReason::kDecided);
  EXPECT_EQ(stop(6, Verdict::kEquivalent, 1.0).reason, StopReason::kDecided);
  EXPECT_EQ(stop(6, Verdict::kInconclusive, 3.0).reason, StopReason::kPrecise);  // <= target
  EXPECT_TRUE(stop(6, Verdict::kInconclusive, 3.0).stop);
  EXPECT_EQ(stop(6, Verdict::kInconclusive, 3.01).reason, StopReason::kContinue);
  EXPECT_FALSE(stop(6, Verdict::kInconclusive, kInf).stop);  // unknown width never counts as precise
  EXPECT_EQ(stop(30, Verdict::kInconclusive, kInf).reason, StopReason::kMaxRounds);
  EXPECT_EQ(stop(31, Verdict::kInconclusive, kInf).reason, StopReason::kMaxRounds);
  EXPECT_THROW(should_stop(6, 5, 4, Verdict::kInconclusive, 1.0, 3.0), std::invalid_argument);
  EXPECT_THROW(should_stop(-1, 5, 30, Verdict::kInconclusive, 1.0, 3.0), std::invalid_argument);
  EXPECT_THROW(should_stop(6, 5, 30, Verdict::kInconclusive, NAN, 3.0), std::invalid_argument);
  EXPECT_THROW(should_stop(6, 5, 30, Verdict::kInconclusive, 1.0, 0.0), std::invalid_argument);
}

TEST(StatsSequential, LookWithTooFewRoundsForItsConfidenceIsInconclusive) {
  // Every round 20% faster, but 5 rounds cannot give a 99.8% signed-rank CI (2/2^5 > 0.002).
  const std::vector<double> base{10, 11, 12, 10.5, 11.5}, arm{8, 8.8, 9.6, 8.4, 9.2};
  const Look look = evaluate_look(base, arm, SequentialPlan{});
  EXPECT_FALSE(look.comparison.log_ratio.coverage_met);
  EXPECT_EQ(look.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(std::isinf(look.comparison.ratio_pct.half_width));
  EXPECT_FALSE(look.decision.stop);
}

TEST(StatsSequential, LookDecidesOnceTheCiClearsTheMargin) {
  std::vector<double> base, arm;
  for (int r = 0; r < 12; ++r) {
    base.push_back(10.0 + 0.1 * r);
    arm.push_back((10.0 + 0.1 * r) * (0.85 + 0.004 * ((r * 7) % 5)));
  }
  const Look look = evaluate_look(base, arm, SequentialPlan{});
  EXPECT_TRUE(look.comparison.log_ratio.coverage_met);
  EXPECT_EQ(look.verdict, Verdict::kFaster);
  EXPECT_EQ(look.decision.reason, StopReason::kDecided);
  EXPECT_LT(look.comparison.ratio_pct.upper, -2.0);
  SequentialPlan throughput;
  throughput.higher_is_better = true;
  EXPECT_EQ(evaluate_look(base, arm, throughput).verdict, Verdict::kSlower);
}
