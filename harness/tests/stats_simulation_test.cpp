// Validity of the sequential rule on the synthetic benchmark of simulation.h, with fixed seeds:
//   A/A: two identical arms; at most 5% of 200 experiments may end "faster" or "slower".
//   Power: a clear 10% effect must get the verdict of a fixed max_rounds design, using on average at most
//   60% of the rounds. The plan is the issue's: min 5, max 30 rounds, margin 2%, target half-width 3%.
#include <gtest/gtest.h>

#include <cstdio>
#include <span>
#include <string>

#include "placebench/harness/stats/simulation.h"

using namespace placebench::harness::stats;

namespace {

SimulationConfig issue_config(double effect_pct, std::uint64_t seed) {
  SimulationConfig c;
  c.experiments = 200;
  c.seed = seed;
  c.true_effect_pct = effect_pct;
  c.plan.min_rounds = 5;
  c.plan.max_rounds = 30;
  c.plan.confidence = 0.95;
  c.plan.margin_pct = 2.0;
  c.plan.target_half_width_pct = 3.0;
  return c;
}

}  // namespace

TEST(StatsSimulation, AaFalseVerdictRateAtMostFivePercent) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const SimulationSummary s = simulate_sequential(issue_config(0.0, seed));
    EXPECT_LE(s.decisive_rate, 0.05) << "seed " << seed << ": " << s.faster << " faster, " << s.slower << " slower";
    EXPECT_EQ(s.faster + s.slower + s.equivalent + s.inconclusive, s.experiments);
    RecordProperty("aa_decisive_rate_seed_" + std::to_string(seed), std::to_string(s.decisive_rate));
    std::printf("A/A seed %llu: faster %d slower %d equivalent %d inconclusive %d, mean rounds %.3f\n",
                static_cast<unsigned long long>(seed), s.faster, s.slower, s.equivalent, s.inconclusive,
                s.mean_rounds_fraction);
  }
}

// A stricter check of the accounting for repeated looks: with no margin a verdict only needs the CI to
// exclude 0 at one of the 26 looks, which naive 95% looks would do far more often than 5%.
TEST(StatsSimulation, AaWithZeroMarginStillAtMostFivePercent) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SimulationConfig c = issue_config(0.0, seed);
    c.plan.margin_pct = 0.0;
    const SimulationSummary s = simulate_sequential(c);
    EXPECT_LE(s.decisive_rate, 0.05) << "seed " << seed;
    std::printf("A/A margin 0 seed %llu: decisive rate %.3f\n", static_cast<unsigned long long>(seed),
                s.decisive_rate);
  }
}

// The check has teeth: the same A/A data looked at after every round with plain 95% CIs (no accounting
// for the looks) gives a false verdict far more often than 5% (about 18% on this model).
TEST(StatsSimulation, NaiveRepeatedLooksWouldMissTheTarget) {
  const SimulationConfig c = issue_config(0.0, 1);
  int decisive = 0;
  for (int i = 0; i < c.experiments; ++i) {
    const SimulatedRounds r = simulate_rounds(c, 1000 + static_cast<std::uint64_t>(i));
    for (int n = c.plan.min_rounds; n <= c.plan.max_rounds; ++n) {
      const auto k = static_cast<std::size_t>(n);
      const PairedComparison p = compare_paired(std::span(r.baseline).first(k), std::span(r.arm).first(k), 0.95);
      const Verdict v = classify_verdict(p.ratio_pct.lower, p.ratio_pct.upper, 0.0);
      if (p.log_ratio.coverage_met && (v == Verdict::kFaster || v == Verdict::kSlower)) {
        ++decisive;
        break;
      }
    }
  }
  EXPECT_GT(static_cast<double>(decisive) / c.experiments, 0.10);
}

TEST(StatsSimulation, ClearTenPercentEffectStopsEarlyWithTheFixedDesignsVerdict) {
  for (double effect : {-10.0, 10.0}) {
    const SimulationSummary s = simulate_sequential(issue_config(effect, 7));
    const Verdict expected = effect < 0 ? Verdict::kFaster : Verdict::kSlower;
    int fixed_expected = 0;
    for (const auto& o : s.outcomes) fixed_expected += o.fixed == expected;
    EXPECT_EQ(fixed_expected, s.experiments) << "the fixed design itself misses the effect";
    EXPECT_GE(s.agreement_with_fixed, 0.95) << "effect " << effect;
    EXPECT_LE(s.mean_rounds_fraction, 0.60) << "effect " << effect;
    std::printf("effect %+.0f%%: agreement %.3f, mean rounds fraction %.3f (faster %d slower %d)\n", effect,
                s.agreement_with_fixed, s.mean_rounds_fraction, s.faster, s.slower);
  }
}

TEST(StatsSimulation, DeterministicForAFixedSeed) {
  SimulationConfig c = issue_config(-10.0, 42);
  c.experiments = 20;
  const SimulationSummary a = simulate_sequential(c), b = simulate_sequential(c);
  ASSERT_EQ(a.outcomes.size(), b.outcomes.size());
  for (std::size_t i = 0; i < a.outcomes.size(); ++i) {
    EXPECT_EQ(a.outcomes[i].rounds_used, b.outcomes[i].rounds_used);
    EXPECT_EQ(a.outcomes[i].sequential, b.outcomes[i].sequential);
  }
  const SimulatedRounds r = simulate_rounds(c, 5);
  EXPECT_EQ(r.baseline.size(), 30u);
  EXPECT_EQ(r.arm.size(), 30u);
}

TEST(StatsSimulation, RejectsBadConfig) {
  SimulationConfig c = issue_config(0.0, 1);
  c.experiments = 0;
  EXPECT_THROW(simulate_sequential(c), std::invalid_argument);
  c = issue_config(-100.0, 1);
  EXPECT_THROW(simulate_sequential(c), std::invalid_argument);
  c = issue_config(0.0, 1);
  c.plan.min_rounds = 40;
  EXPECT_THROW(simulate_sequential(c), std::invalid_argument);
}
