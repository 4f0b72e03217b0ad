// The staging copy timing rules (issue 16 defects 1 and 2): pageable memory is timed with a host timer
// (no hold kernel), at most 16 copies are queued behind one hold, a hold that timed out fails the batch.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "placebench/kernels/copy_timing.h"

using namespace placebench::kernels;

TEST(CopyTiming, PageableIsTimedOnTheHostPinnedBehindAHold) {
  EXPECT_EQ(copy_timing_for(false), CopyTiming::kHostTimer);
  EXPECT_EQ(copy_timing_for(true), CopyTiming::kHeldStream);
}

TEST(CopyTiming, AtMostSixteenCopiesPerHold) {
  EXPECT_EQ(kMaxCopiesPerHold, 16);
  EXPECT_EQ(copies_per_hold(1), (std::vector<int>{1}));
  EXPECT_EQ(copies_per_hold(16), (std::vector<int>{16}));
  EXPECT_EQ(copies_per_hold(17), (std::vector<int>{16, 1}));
  std::vector<int> big = copies_per_hold(10000);  // the automatic count at small sizes
  EXPECT_EQ(std::accumulate(big.begin(), big.end(), 0), 10000);
  for (int n : big) EXPECT_LE(n, kMaxCopiesPerHold);
  EXPECT_EQ(big.size(), 625u);
  EXPECT_THROW(copies_per_hold(0), std::invalid_argument);
}

TEST(CopyTiming, AHoldThatTimedOutFailsTheMeasurement) {
  EXPECT_NO_THROW(check_hold_released(0, 16, 4096));
  try {
    check_hold_released(1, 16, 4096);
    FAIL() << "expected a failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("deadline"), std::string::npos);
  }
}
