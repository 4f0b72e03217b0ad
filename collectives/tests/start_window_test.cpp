// Common start instants (start_window.h): a call never starts before its window, the windows follow
// the common clock (not this rank's), a window already open counts as missed and starts at once, and
// the period leaves room for the step and the longest own work.
#include <gtest/gtest.h>

#include "../src/start_window.h"
#include "placebench/collectives/clock_sync.h"

using namespace placebench::collectives;
using namespace placebench::collectives::detail;

TEST(StartWindow, NoCallStartsBeforeItsWindow) {
  // Whether a window is missed depends on this machine's load (a descheduled test can come late); that
  // a start is never before its window does not.
  const double period = 2e-3;
  WindowPlan plan{steady_now_s() + 5e-3, period};
  StartWindows w(plan, 0);
  for (int k = 0; k < 5; ++k) {
    double start = w.wait_next();
    EXPECT_GE(start, plan.first_s + k * period) << "window " << k;
  }
  EXPECT_DOUBLE_EQ(w.period_s(), period);
}

TEST(StartWindow, WindowsAreOnTheCommonClockNotThisRanks) {
  // Rank 0's clock is 1 s ahead of this rank's: window 0 at rank-0 time now+1s+3ms is this rank's now+3ms
  // (had the offset been applied the wrong way, it would wait 2 s, or not at all).
  const double offset = 1.0;
  double before = steady_now_s();
  double first_common = before + offset + 3e-3;
  StartWindows w({first_common, 1e-3}, offset);
  double start = w.wait_next();
  EXPECT_GE(start, first_common);
  EXPECT_GE(steady_now_s() + offset, first_common);  // this rank's clock reached it as well
  EXPECT_LT(steady_now_s() - before, 1.0);           // and did not wait the offset as well
}

TEST(StartWindow, AWindowAlreadyOpenIsMissedAndStartsAtOnce) {
  double now = steady_now_s();
  StartWindows w({now - 1.0, 0.1}, 0);  // windows 0..9 opened in the last second
  double start = w.wait_next();
  EXPECT_GE(start, now);
  EXPECT_LT(start, now + 0.5);  // no wait for anything: it came late
  EXPECT_EQ(w.missed(), 1u);
  w.wait_next();
  EXPECT_EQ(w.missed(), 2u);
}

TEST(StartWindow, PeriodCoversTheStepAndTheLongestWork) {
  EXPECT_DOUBLE_EQ(window_period_s(200e-6, 0), 1.5 * 200e-6 + 0.5e-3);
  EXPECT_DOUBLE_EQ(window_period_s(200e-6, 40e-6), 1.5 * 200e-6 + 0.5e-3 + 40e-6);
  EXPECT_DOUBLE_EQ(window_period_s(-1, -1), 0.5e-3);  // nothing measured: the margin alone
  EXPECT_GT(window_period_s(1.0, 0), 1.0);
}
