// Internal: recording who sets the pace (pace.h) and the dose rounds of stragglers on purpose.
//   Recording: each rank keeps, per timed block or call, its start, arrival and departure on rank 0's
//   clock (local steady time + its clock_sync offset), three doubles a record; rank 0 gathers them.
//   Dose rounds: `slow_rounds` rounds, each running every dose once in an order drawn per round
//   (Fisher-Yates on a seeded mt19937_64, the same draw on every rank, as the experiment runner orders
//   arms); a dose is `iters` timed steps: wait for the step's common start instant (start_window.h),
//   the slowed ranks spin for the dose, one call.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/pace.h"
#include "start_window.h"

namespace placebench::collectives::detail {

// Busy work for s seconds on the steady clock (a calibrated spin: it ends at the time, not after a
// count of loops, so the dose holds on any CPU); returns the seconds it actually took. It yields the
// core every 50 us (sched_yield): on an oversubscribed node a rank whose work is over waits for a core
// that another rank's spin holds, for a time slice or until that spin ends, which moves the two arrivals
// together (a slowed rank's dose hid behind its core-mate's late arrival: docs/performance.md); with
// the yield it waits at most about 50 us for a yielding core-mate. On a core of its own the yield
// returns at once.
double spin_for_s(double s);
inline constexpr double kSpinYieldS = 50e-6;  // how often the spin and counted work give the core up

// Counted work (gang.h, measure_work_units_per_s): `units` units, yielding every 50 us as the spin
// does; returns the seconds it took (longer under a CPU share cap, which a timed spin would hide).
double run_work_units(std::uint64_t units);

class PaceRecorder {
 public:
  // records: how many will be made, reserved up front so no record allocates between timed steps.
  explicit PaceRecorder(double offset_s, std::size_t records = 0) : offset_s_(offset_s) { wire_.reserve(records * 3); }
  double now_s() const;  // the common clock
  void record(double start_s, double arrive_s, double depart_s);
  const std::vector<double>& wire() const { return wire_; }
  void clear() { wire_.clear(); }

 private:
  double offset_s_;
  std::vector<double> wire_;
};

// Rank-major gather of every rank's wire (rank r's record b at (r * records + b) * 3) -> [block][rank].
PaceTimeline timeline_from_wire(const std::vector<double>& gathered, std::size_t nranks);

// A block's step: latest departure - earliest start; its collective time: the longest depart - arrive.
double step_s(const std::vector<RankBlockTimes>& block);
double longest_call_s(const std::vector<RankBlockTimes>& block);

// The dose order of one round: a permutation of 0..doses-1.
std::vector<std::size_t> dose_order(std::size_t doses, std::uint64_t seed, int round);

// The dose rounds, collective over all ranks. one_step(spin_s, recorder, windows) runs one timed step
// on this rank (wait for the next window, spin, one call) and records it. Rank 0 gets the figures;
// others an empty vector. base_step_s: the step time a percent dose is a share of (the same on every
// rank); the windows' period is made from it and the largest dose.
using TimedStep = std::function<double(double spin_s, PaceRecorder& recorder, StartWindows& windows)>;  // the call's time
std::vector<DoseFigures> run_dose_rounds(MpiSession& session, const CollectiveBenchConfig& cfg, double offset_s,
                                         double base_step_s, const std::vector<double>& uncertainty_s,
                                         const TimedStep& one_step);

// Rank 0's reduction of one dose (host code, unit-tested): rounds[r] = that round's steps at this dose,
// reference[r] = the same round's steps at dose 0.
DoseFigures reduce_dose(const std::vector<PaceTimeline>& rounds, const std::vector<PaceTimeline>& reference,
                        const std::vector<int>& slow_ranks, const std::vector<double>& uncertainty_s);

}  // namespace placebench::collectives::detail
