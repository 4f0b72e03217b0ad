// The pace-setter rule (pace.h) on fake timelines: a clear straggler is named, a lateness within the
// clocks' uncertainty is unknown, ties are unknown, and symmetric ranks name nobody over a trial.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "placebench/collectives/pace.h"

using namespace placebench::collectives;

namespace {

// Ranks that start at 0, arrive at arrivals[r] and all depart at the last arrival + 10 us.
std::vector<RankBlockTimes> block(const std::vector<double>& arrivals) {
  double last = 0;
  for (double a : arrivals) last = std::max(last, a);
  std::vector<RankBlockTimes> out;
  for (double a : arrivals) out.push_back({0, a, last + 10e-6});
  return out;
}

const std::vector<double> kTightClocks = {0, 1e-6, 1e-6, 1e-6};  // rtt/2 per rank: 1 us

}  // namespace

TEST(Pace, UncertaintyIsHalfTheRoundTripAndZeroForRankZero) {
  EXPECT_EQ(clock_uncertainty_s({5e-6, 4e-6, 2e-6}), (std::vector<double>{0, 2e-6, 1e-6}));
}

TEST(Pace, AClearStragglerIsNamedWithItsLatenessAndBound) {
  BlockPace b = name_block_pace(block({10e-6, 12e-6, 110e-6, 11e-6}), kTightClocks);
  EXPECT_EQ(b.setter, 2);
  EXPECT_EQ(b.last, 2);
  EXPECT_NEAR(b.lateness_s, 98e-6, 1e-12);
  EXPECT_NEAR(b.bound_s, 2e-6, 1e-12);
}

TEST(Pace, LatenessWithinTheClockUncertaintyIsUnknown) {
  // Rank 3 is last by 3 us, but ranks 1 and 3 each know rank 0's clock only to 2.5 us: 5 us together.
  BlockPace b = name_block_pace(block({0, 10e-6, 0, 13e-6}), {0, 2.5e-6, 2.5e-6, 2.5e-6});
  EXPECT_EQ(b.setter, -1);
  EXPECT_EQ(b.last, 3);
  EXPECT_EQ(pace_setter_text(b.setter), "unknown");
  // The same gap against rank 0, whose clock is the reference, needs only rank 3's 2.5 us.
  EXPECT_EQ(name_block_pace(block({10e-6, 0, 0, 13e-6}), {0, 2.5e-6, 2.5e-6, 2.5e-6}).setter, 3);
}

TEST(Pace, ATieNamesNobodyEvenWithPerfectClocks) {
  BlockPace b = name_block_pace(block({5e-6, 7e-6, 7e-6, 1e-6}), {0, 0, 0, 0});
  EXPECT_EQ(b.setter, -1);
  EXPECT_DOUBLE_EQ(b.lateness_s, 0);
}

TEST(Pace, FewerThanTwoRanksHaveNoPaceSetter) {
  EXPECT_EQ(name_block_pace(block({1e-3}), {0}).last, -1);
  EXPECT_EQ(name_trial_pace({block({1e-3})}, {0}).setter, -1);
}

TEST(Pace, MismatchedSizesAreRefused) {
  EXPECT_THROW(name_block_pace(block({1, 2}), {0, 0, 0}), std::invalid_argument);
}

TEST(Pace, ATrialNamesTheRankLastInMostBlocksWithItsMedianLateness) {
  PaceTimeline t;
  for (int i = 0; i < 9; ++i) t.push_back(block({1e-6 * i, 2e-6, 50e-6 + 1e-6 * i, 3e-6}));
  t.push_back(block({90e-6, 2e-6, 1e-6, 3e-6}));  // one block where rank 0 is late
  TrialPace p = name_trial_pace(t, kTightClocks);
  EXPECT_EQ(p.setter, 2);
  EXPECT_EQ(p.blocks, 10);
  EXPECT_EQ(p.ranks[2].named_blocks, 9);
  EXPECT_EQ(p.ranks[0].named_blocks, 1);
  EXPECT_EQ(p.unknown_blocks, 0);
  EXPECT_GT(p.ranks[2].median_lateness_s, 40e-6);
  EXPECT_LT(p.ranks[0].median_lateness_s, 0);
  EXPECT_NEAR(p.ranks[2].median_compute_s, 53.5e-6, 1e-12);  // 50..58 us and 1 us: the middle two
}

TEST(Pace, SymmetricRanksNameNobodyOverATrialThoughEachBlockHasALastRank) {
  PaceTimeline t;
  for (int i = 0; i < 20; ++i) {
    std::vector<double> a = {0, 0, 0, 0};
    a[static_cast<std::size_t>(i % 4)] = 30e-6;  // each rank late in a quarter of the blocks
    t.push_back(block(a));
  }
  TrialPace p = name_trial_pace(t, kTightClocks);
  EXPECT_EQ(p.setter, -1);
  for (const RankPace& r : p.ranks) EXPECT_EQ(r.named_blocks, 5);
}

TEST(Pace, TwoRanksEachLastInHalfTheBlocksNameNobody) {
  PaceTimeline t;
  for (int i = 0; i < 10; ++i) t.push_back(block(i % 2 ? std::vector<double>{0, 40e-6} : std::vector<double>{40e-6, 0}));
  EXPECT_EQ(name_trial_pace(t, {0, 1e-6}).setter, -1);
}

TEST(Pace, AStragglerHiddenByTheClockUncertaintyIsUnknownOverTheTrial) {
  PaceTimeline t;
  for (int i = 0; i < 10; ++i) t.push_back(block({0, 1e-6, 4e-6, 1e-6}));  // 3 us late; ranks 1-3 each +-3 us
  TrialPace p = name_trial_pace(t, {0, 3e-6, 3e-6, 3e-6});
  EXPECT_EQ(p.setter, -1);
  EXPECT_EQ(p.unknown_blocks, 10);
  EXPECT_EQ(p.ranks[2].last_blocks, 10);
}

namespace {

// A trial of `blocks` steps of 1 ms of work on 4 ranks with scheduling noise (each rank's arrival late by
// an exponential draw, mean 30 us, and in 5% of blocks a whole 400 us time slice), rank `slow` late by
// `extra_s` more in every block; clocks +-1 us.
TrialPace noisy_trial(std::uint64_t seed, int slow, double extra_s, int blocks = 100) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> noise(1 / 30e-6);
  std::bernoulli_distribution preempted(0.05);
  PaceTimeline t;
  for (int b = 0; b < blocks; ++b) {
    std::vector<double> a(4);
    for (std::size_t r = 0; r < 4; ++r)
      a[r] = 1e-3 + noise(rng) + (preempted(rng) ? 400e-6 : 0) + (static_cast<int>(r) == slow ? extra_s : 0);
    t.push_back(block(a));
  }
  return name_trial_pace(t, kTightClocks);
}

}  // namespace

TEST(Pace, AaTrialsWithSchedulingNoiseNameARankAtMostOnceInTwenty) {
  int named = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    TrialPace p = noisy_trial(seed, -1, 0);
    named += p.setter >= 0;
    if (p.setter < 0) {
      EXPECT_NE(p.reason.find("unknown"), std::string::npos) << p.reason;
    }
  }
  EXPECT_LE(named, 1);
}

TEST(Pace, ARankLateByTenPercentOfTheStepIsNamedThroughTheNoise) {
  int named = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    TrialPace p = noisy_trial(seed, 1, 100e-6);
    named += p.setter == 1;
    if (p.setter == 1) {
      EXPECT_EQ(p.reason.rfind("named: rank 1", 0), 0u) << p.reason;
    }
  }
  EXPECT_GE(named, 19);
}

TEST(Pace, ARankAlwaysLastByChanceAloneIsNotNamedInAShortTrial) {
  // Last in 3 of 3 blocks: P = (1/4)^3 = 0.016, not below 0.01 / 4.
  TrialPace p = noisy_trial(7, 2, 500e-6, 3);
  EXPECT_EQ(p.setter, -1);
  EXPECT_EQ(p.short_reason, "not last more often than chance");
  EXPECT_NEAR(p.ranks[2].p_value, 1.0 / 64, 1e-9);
}

TEST(Pace, ASystematicallyLateRankBelowTheMinimumEffectIsUnknownWithTheReason) {
  // Rank 3 last in every block, beyond the clocks, but by 5 us of a ~1 ms step (under 2%).
  PaceTimeline t;
  for (int i = 0; i < 40; ++i) t.push_back(block({1e-3, 1e-3 + 1e-6 * (i % 3), 1e-3, 1.005e-3 + 2e-6}));
  TrialPace p = name_trial_pace(t, kTightClocks);
  EXPECT_EQ(p.setter, -1);
  EXPECT_EQ(p.short_reason, "late by under 2% of the step");
  EXPECT_LT(p.ranks[3].p_value, 1e-6);
  EXPECT_NE(p.reason.find("rank 3 last in 40/40"), std::string::npos) << p.reason;
}
