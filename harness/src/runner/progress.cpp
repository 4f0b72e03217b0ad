// `run`'s progress (progress.h): the modes, the line and its time left.
#include "placebench/harness/runner/progress.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "placebench/harness/errors.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

constexpr const char* kClearLine = "\r\033[K";
constexpr std::string_view kPrefix = "placebench run: ";

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// $COLUMNS when it is a plausible width (digits, 20 to 1000), else 80.
int columns_from_env() {
  const char* env = std::getenv("COLUMNS");
  std::string text = env ? env : "";
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos) return 80;
  int n = std::stoi(text);
  return n >= 20 && n <= 1000 ? n : 80;
}

// A time left, as a person reads it: seconds, minutes, then hours.
std::string duration_text(double s) {
  if (s < 90) return fmt::format("{:.0f} s", std::ceil(s));
  if (s < 90 * 60) return fmt::format("{:.0f} min", std::ceil(s / 60));
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

ProgressSettings progress_settings(const std::string& option, bool quiet, bool stderr_is_tty) {
  ProgressSettings s;
  s.columns = columns_from_env();
  const char* env = std::getenv("PLACEBENCH_PROGRESS");
  std::string where = !option.empty() ? "--progress" : "PLACEBENCH_PROGRESS";
  std::string choice = quiet ? "none" : !option.empty() ? option : env && *env ? env : "auto";
  if (choice == "none") s.mode = ProgressMode::kNone;
  else if (choice == "plain") s.mode = ProgressMode::kPlain;
  else if (choice == "tty") s.mode = ProgressMode::kTty;
  else if (choice == "auto") s.mode = stderr_is_tty ? ProgressMode::kTty : ProgressMode::kPlain;
  else throw InputError(where + " " + escape_control(choice) + ": not auto, tty, plain or none");
  return s;
}

namespace detail {

Progress::Progress(std::ostream& log, ProgressSettings settings, int total, Clock clock)
    : log_(log), settings_(settings), total_(total), clock_(clock ? std::move(clock) : Clock(steady_seconds)) {}

double Progress::now() const { return clock_(); }

// An upper bound (every planned round run) at the pace of this process's finished trials.
std::string Progress::eta_text(int done) const {
  int measured = done - first_done_;
  if (measured <= 0) return "ETA after the first trial";
  double per_trial = (now() - start_s_) / measured;
  return "ETA <= " + duration_text(per_trial * (total_ - done));
}

std::string Progress::line(const TrialSlot& s, int max_rounds, int done) const {
  return fmt::format("{}/{} trials (at most), {}; class {} round {}/{} arm {}{}", done, total_, eta_text(done),
                     escape_control(s.class_name), s.round + 1, max_rounds, arm_name(s.arm),
                     s.condition.empty() ? "" : " under " + s.condition);
}

void Progress::trial(const TrialSlot& s, int max_rounds, int done) {
  if (settings_.mode == ProgressMode::kNone) return;
  double t = now();
  bool first = !started_;
  if (first) {
    started_ = true;
    start_s_ = t;
    first_done_ = done;
  }
  done_ = done;
  if (settings_.mode == ProgressMode::kTty) {
    // Never wider than the terminal (a wrapped line would not be rewritten in place): the first of these
    // that fits, else the last cut short.
    const std::string full = line(s, max_rounds, done);
    const std::string terse = fmt::format("{}/{}, {}; {} {}/{} {}", done, total_, eta_text(done), escape_control(s.class_name),
                                          s.round + 1, max_rounds, arm_name(s.arm));
    auto width = static_cast<std::size_t>(settings_.columns - 1);
    std::string text = std::string(kPrefix) + full;
    for (const std::string& shorter : {full, terse})
      if (text.size() > width) text = shorter;
    if (text.size() > width) text = text.substr(0, width - 3) + "...";
    log_ << kClearLine << text << std::flush;
    return;
  }
  if (!first && t - last_line_s_ < kPlainIntervalS) return;
  last_line_s_ = t;
  log_ << kPrefix << line(s, max_rounds, done) << "\n" << std::flush;
}

void Progress::trial_finished(int done) {
  done_ = done;
  last_finish_s_ = now();
}

void Progress::done() {
  if (settings_.mode == ProgressMode::kTty && started_) log_ << kClearLine << std::flush;
  if (settings_.mode != ProgressMode::kPlain || !started_) return;
  log_ << kPrefix << fmt::format("{}/{} trials (at most) done, {} in this process in {}\n", done_, total_,
                      done_ - first_done_, duration_text(last_finish_s_ > start_s_ ? last_finish_s_ - start_s_ : 0))
       << std::flush;
}

}  // namespace detail
}  // namespace placebench::harness
