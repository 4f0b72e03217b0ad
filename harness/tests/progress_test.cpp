// `run`'s progress (progress.h): the modes from --progress, --quiet and the environment; the time left;
// the line's width. The modes' whole output is in tests/golden (GoldenProgress.*).
#include "placebench/harness/runner/progress.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "placebench/harness/errors.h"

using namespace placebench::harness;

namespace {

// Sets an environment variable for one test, and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TrialSlot slot(int round) { return TrialSlot{"c", 0, Arm::kLocal, round, 0}; }

}  // namespace

TEST(Progress, ModeFromOptionEnvironmentAndTerminal) {
  ScopedEnv env("PLACEBENCH_PROGRESS", nullptr);
  EXPECT_EQ(progress_settings("", false, true).mode, ProgressMode::kTty);
  EXPECT_EQ(progress_settings("", false, false).mode, ProgressMode::kPlain);
  EXPECT_EQ(progress_settings("auto", false, true).mode, ProgressMode::kTty);
  EXPECT_EQ(progress_settings("plain", false, true).mode, ProgressMode::kPlain);
  EXPECT_EQ(progress_settings("tty", false, false).mode, ProgressMode::kTty);
  EXPECT_EQ(progress_settings("none", false, true).mode, ProgressMode::kNone);
  EXPECT_EQ(progress_settings("", true, true).mode, ProgressMode::kNone);  // --quiet
  ScopedEnv set("PLACEBENCH_PROGRESS", "none");
  EXPECT_EQ(progress_settings("", false, true).mode, ProgressMode::kNone);
  EXPECT_EQ(progress_settings("plain", false, true).mode, ProgressMode::kPlain);  // the option wins
}

TEST(Progress, AWrongValueNamesWhereItCameFrom) {
  ScopedEnv env("PLACEBENCH_PROGRESS", "loud");
  try {
    progress_settings("", false, false);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "PLACEBENCH_PROGRESS loud: not auto, tty, plain or none");
  }
  EXPECT_EQ(progress_settings("none", false, false).mode, ProgressMode::kNone);
}

TEST(Progress, WidthFromColumnsElse80) {
  for (auto [value, width] : {std::pair{"132", 132}, {"", 80}, {"5", 80}, {"wide", 80}, {"1e3", 80}, {"20", 20}}) {
    ScopedEnv env("COLUMNS", value);
    EXPECT_EQ(progress_settings("tty", false, true).columns, width) << value;
  }
}

TEST(Progress, TimeLeftFromTheTrialsOfThisProcess) {
  // A resumed run: 10 trials done before; this process's first two take 6 s each; 18 at most remain.
  std::ostringstream log;
  double now_s = 0;
  detail::Progress p(log, {ProgressMode::kPlain, 80}, 30, [&now_s] { return now_s; });
  p.trial(slot(3), 10, 10);
  EXPECT_NE(log.str().find("10/30 trials (at most), ETA after the first trial"), std::string::npos) << log.str();
  now_s = 6;
  p.trial_finished(11);
  p.trial(slot(3), 10, 11);
  now_s = 12;
  p.trial_finished(12);
  now_s = 12.5;
  p.trial(slot(4), 10, 12);  // 10 s after the first line: written
  EXPECT_NE(log.str().find("12/30 trials (at most), ETA <= 2 min; class c round 5/10 arm local\n"), std::string::npos)
      << log.str();
  EXPECT_EQ(log.str().find("11/30"), std::string::npos) << "a line within 10 s of the last";
}

TEST(Progress, TtyLineNeverWiderThanTheTerminal) {
  std::ostringstream log;
  detail::Progress p(log, {ProgressMode::kTty, 30}, 500, [] { return 0.0; });
  p.trial(TrialSlot{std::string(80, 'x'), 0, Arm::kCpuLocalMemRemote, 0, 0}, 50, 0);
  std::string text = log.str().substr(4);  // after "\r\033[K"
  EXPECT_EQ(text.size(), 29u) << text;
  EXPECT_EQ(text.substr(26), "...");
}
