// `run`'s progress on stderr (--progress, --quiet): one updating line on a terminal, short plain lines at a
// steady rate for a CI log, or nothing. Each line says where the run stands (class, round, arm), the trials
// done out of the most the plan may run, and an upper bound of the time left, from the trials measured so
// far (before the first one finishes there is none to give: "ETA after the first trial"). On a narrow
// terminal the line drops its prefix, then its words ("6/180, ETA <= 5 min; staging-4m 3/60 unpinned").
#pragma once
#include <functional>
#include <ostream>
#include <string>

#include "placebench/harness/runner/trial.h"

namespace placebench::harness {

enum class ProgressMode { kNone, kPlain, kTty };

// How a run shows its progress, resolved once by the CLI.
struct ProgressSettings {
  ProgressMode mode = ProgressMode::kPlain;
  int columns = 80;  // the terminal's width (tty mode): the line never wraps
};

// --progress's value ("" when not given: $PLACEBENCH_PROGRESS, else auto), with --quiet (none): auto is tty
// when stderr is a terminal, else plain. The width is $COLUMNS (20 to 1000), else 80. A value that is not
// auto, tty, plain or none is an InputError naming the option or the variable.
ProgressSettings progress_settings(const std::string& option, bool quiet, bool stderr_is_tty);

namespace detail {

// The run's progress reporter (rank 0 alone). `clock` gives monotonic seconds (a test's fake; by default
// the steady clock); plain mode writes a line at the first trial, then at most one per `plain_interval_s`,
// and one at the end.
class Progress {
 public:
  using Clock = std::function<double()>;
  static constexpr double kPlainIntervalS = 10;

  Progress(std::ostream& log, ProgressSettings settings, int total, Clock clock = {});

  // Before a trial starts; `done`: the trials of the run finished so far (a resumed run's included).
  void trial(const TrialSlot& s, int max_rounds, int done);
  // After a trial finished: `done` counts it.
  void trial_finished(int done);
  // The run ended (finished, stopped or interrupted): the terminal line is cleared; plain says the total.
  void done();

 private:
  std::string line(const TrialSlot& s, int max_rounds, int done) const;
  std::string eta_text(int done) const;
  double now() const;

  std::ostream& log_;
  ProgressSettings settings_;
  int total_;
  Clock clock_;
  bool started_ = false;
  double start_s_ = 0;          // when this process's first trial started
  int first_done_ = 0;          // trials done before it (a resumed run's)
  int done_ = 0;                // trials done by the last report
  double last_finish_s_ = 0;    // when the last trial finished
  double last_line_s_ = 0;      // plain: when the last line was written
};

}  // namespace detail
}  // namespace placebench::harness
