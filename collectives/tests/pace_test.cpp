// The pace-setter rule (pace.h) on fake timelines: a clear straggler is named, a lateness within the
// clocks' uncertainty is unknown, ties are unknown, and symmetric ranks name nobody over a trial.
#include <gtest/gtest.h>

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
