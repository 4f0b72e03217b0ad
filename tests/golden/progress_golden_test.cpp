// Golden outputs of `run`'s progress (progress.h) in each mode, on a fake clock and a string stream: a
// scripted run of 7 trials (at most 12) of 4 s each, a 30-s pause before the fifth. tty's line rewrites
// ("\r\033[K") are shown as "<clear>" at the start of a line of the golden file.
#include <gtest/gtest.h>

#include <sstream>

#include "golden.h"
#include "placebench/harness/runner/progress.h"

using namespace placebench::harness;
using placebench::golden::matches_golden;

namespace {

std::string scripted_run(ProgressSettings settings) {
  std::ostringstream log;
  double now_s = 100;
  detail::Progress progress(log, settings, 12, [&now_s] { return now_s; });
  const Arm arms[] = {Arm::kLocal, Arm::kUnpinned, Arm::kRemote};
  for (int done = 0; done < 7; ++done) {
    if (done == 4) now_s += 30;
    TrialSlot slot{"staging-4m", 0, arms[done % 3], done / 3, done % 3};
    progress.trial(slot, 4, done);
    now_s += 4;
    progress.trial_finished(done + 1);
  }
  progress.done();
  std::string out = log.str();
  return placebench::golden::replace_all(out, "\r\033[K", "\n<clear>");
}

}  // namespace

TEST(GoldenProgress, PlainLinesAtASteadyRate) {
  EXPECT_TRUE(matches_golden(scripted_run({ProgressMode::kPlain, 80}), "printers/progress-plain.txt"));
}

TEST(GoldenProgress, TtyRewritesOneLineThatFitsTheTerminal) {
  EXPECT_TRUE(matches_golden(scripted_run({ProgressMode::kTty, 100}) + "\n", "printers/progress-tty-100.txt"));
  EXPECT_TRUE(matches_golden(scripted_run({ProgressMode::kTty, 60}) + "\n", "printers/progress-tty-60.txt"));
}

TEST(GoldenProgress, NoneWritesNothing) { EXPECT_EQ(scripted_run({ProgressMode::kNone, 80}), ""); }
