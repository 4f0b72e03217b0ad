// Common start instants for timed single calls (see start_window.h).
#include "start_window.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cmath>

#include "placebench/collectives/clock_sync.h"

namespace placebench::collectives::detail {
namespace {

constexpr double kSpinLeadS = 300e-6;   // sleep until this long before a window, then spin
constexpr double kBroadcastLeadS = 5e-3;  // window 0 after rank 0's now: the period plus this

void sleep_until_steady_s(double t) {
  timespec ts{};
  double whole = std::floor(t);
  ts.tv_sec = static_cast<time_t>(whole);
  ts.tv_nsec = static_cast<long>((t - whole) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    // EINTR: sleep again to the same instant (absolute, so no drift); any other error: spin instead.
    if (steady_now_s() >= t) return;
  }
}

}  // namespace

double window_period_s(double step_s, double longest_work_s) {
  return 1.5 * std::max(step_s, 0.0) + 0.5e-3 + std::max(longest_work_s, 0.0);
}

WindowPlan agree_windows(MpiSession& session, double offset_s, double period_s) {
  double first = steady_now_s() + offset_s + period_s + kBroadcastLeadS;
  return {session.broadcast(first, 0), period_s};
}

double StartWindows::wait_next() {
  double window = plan_.first_s + static_cast<double>(next_++) * plan_.period_s;  // common clock
  double local = window - offset_s_;                                              // this rank's clock
  double now = steady_now_s();
  if (now > local) {
    ++missed_;
    return now + offset_s_;
  }
  if (local - now > kSpinLeadS) sleep_until_steady_s(local - kSpinLeadS);
  while ((now = steady_now_s()) < local) sched_yield();
  return now + offset_s_;
}

}  // namespace placebench::collectives::detail
