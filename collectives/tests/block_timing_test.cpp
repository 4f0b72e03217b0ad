// The block/median and per-iteration reductions both backends share (src/block_timing.h): one slow
// block cannot move the row's time, ranks are averaged per block, and per iteration the slowest rank
// and the mean over ranks are kept apart.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "../src/block_timing.h"

using namespace placebench::collectives::detail;

TEST(BlockTiming, MedianOfOddAndEvenCountsAndNone) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({7}), 7);
  EXPECT_DOUBLE_EQ(median_of({}), 0);
}

TEST(BlockTiming, APreemptedBlockDoesNotMoveTheMedianButShowsInTheSpread) {
  // Two ranks, five blocks; rank 1's third block was preempted (1000x). The mean of all blocks (the old
  // single-loop average) would be ~200x; the median stays at the quiet blocks' figure.
  std::vector<double> rank_major{1.0, 1.1, 1.0, 0.9, 1.0,   // rank 0
                                 1.0, 1.1, 1000, 0.9, 1.2};  // rank 1
  BlockFigures f = reduce_blocks(rank_major, 2);
  ASSERT_EQ(f.blocks_s.size(), 5u);
  EXPECT_DOUBLE_EQ(f.blocks_s[0], 1.0);
  EXPECT_DOUBLE_EQ(f.blocks_s[2], 500.5);  // mean over ranks per block
  EXPECT_DOUBLE_EQ(f.median_s, 1.1);       // blocks 1.0 1.1 500.5 0.9 1.1
  EXPECT_DOUBLE_EQ(f.min_s, 0.9);
  EXPECT_DOUBLE_EQ(f.max_s, 500.5);
  EXPECT_DOUBLE_EQ(f.spread, 500.5 / 0.9);
}

TEST(BlockTiming, EqualBlocksHaveSpreadOneAndAZeroBlockHasNoSpread) {
  BlockFigures same = reduce_blocks({2, 2, 2, 2, 2, 2}, 3);
  EXPECT_DOUBLE_EQ(same.median_s, 2);
  EXPECT_DOUBLE_EQ(same.spread, 1);
  EXPECT_DOUBLE_EQ(reduce_blocks({0, 1}, 1).spread, 0);
  EXPECT_TRUE(reduce_blocks({}, 2).blocks_s.empty());
}

TEST(BlockTiming, PerIterationSlowestRankAndMeanOverRanks) {
  // Three ranks, two iterations: the slowest rank differs per iteration.
  IterationFigures f = reduce_iterations({1, 6,  //
                                          3, 2,  //
                                          2, 1},
                                         3);
  ASSERT_EQ(f.slowest_s.size(), 2u);
  EXPECT_DOUBLE_EQ(f.slowest_s[0], 3);
  EXPECT_DOUBLE_EQ(f.slowest_s[1], 6);
  EXPECT_DOUBLE_EQ(f.rank_mean_s[0], 2);
  EXPECT_DOUBLE_EQ(f.rank_mean_s[1], 3);
}

TEST(BlockTiming, TimingsThatDoNotSplitOverTheRanksAreRefused) {
  EXPECT_THROW(reduce_blocks({1, 2, 3}, 2), std::invalid_argument);
  EXPECT_THROW(reduce_iterations({1}, 0), std::invalid_argument);
}
