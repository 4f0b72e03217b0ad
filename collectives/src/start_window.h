// Internal: timed single calls started at common instants (window synchronization, as ReproMPI's:
// Hunold and Carpen-Amarie, "Reproducible MPI benchmarking is still not as easy as you think", 2016).
// A barrier releases ranks in its algorithm's order: on an oversubscribed node the rank that learns
// last that all have arrived leaves tens of microseconds after the others, every time, which is as
// large as a 10% dose on a 200 us call and is named as the pace-setter in A/A runs. Instead every rank
// starts call k at first + k x period on the common clock (its steady clock + its clock_sync offset),
// so a start is off by the clock error and the wake-up, neither of which favours a rank.
//
// The wait has a deadline by construction (the window's instant): it sleeps until kSpinLeadS before
// the window, then spins, yielding the core on every turn (on a core of its own the yield returns at
// once; on a shared one the core-mate that is also waiting gets it for one turn, so neither is more
// than a turn late). A rank that comes to a window after it opened (the previous call overran the
// period) starts at once and the window counts as missed.
#pragma once
#include <cstddef>

#include "placebench/collectives/mpi_session.h"

namespace placebench::collectives::detail {

struct WindowPlan {
  double first_s = 0;   // window 0, on the common clock
  double period_s = 0;  // between windows
};

// The period for calls whose step (start to the latest departure) is about step_s, plus the longest
// own work a rank does before its call: 1.5 x the step + 0.5 ms, so that the previous call has ended
// on every rank before the next window (a missed window is counted, not hidden).
double window_period_s(double step_s, double longest_work_s);

// Collective: rank 0 puts window 0 a lead (the period + 5 ms, for the broadcast to reach everyone)
// after its now; every rank gets the same plan. offset_s: this rank's clock offset to rank 0.
WindowPlan agree_windows(MpiSession& session, double offset_s, double period_s);

class StartWindows {
 public:
  StartWindows(WindowPlan plan, double offset_s) : plan_(plan), offset_s_(offset_s) {}
  // Waits for the next window; returns when this rank begins, on the common clock (the window's
  // instant plus the wake-up, or now when the window had already opened).
  double wait_next();
  std::size_t missed() const { return missed_; }  // windows this rank came to after they opened
  double period_s() const { return plan_.period_s; }

 private:
  WindowPlan plan_;
  double offset_s_;
  std::size_t next_ = 0;
  std::size_t missed_ = 0;
};

}  // namespace placebench::collectives::detail
