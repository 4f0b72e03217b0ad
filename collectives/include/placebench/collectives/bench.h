// The collectives benchmark of one rank: for every collective, type, in-place mode and size, a warm-up,
// a checked call with exactly predictable inputs, `blocks` timed blocks of `iters` pipelined calls (one
// sync per block: nccl-tests' number, taken as the median block) and per-iteration timings (barrier,
// one call, sync), reduced over ranks (src/block_timing.h says how). Plain data in and out: the harness
// decides placement and printing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "placebench/collectives/collective.h"
#include "placebench/collectives/datatype.h"
#include "placebench/collectives/mpi_session.h"
#include "placebench/collectives/pace.h"

namespace placebench::collectives {

// Stragglers on purpose: a dose of extra work (a busy spin on the steady clock) that the slowed ranks do
// before each timed call of the dose rounds.
struct SlowDose {
  std::string text;      // as given: "10%", "50us"
  double value = 0;      // percent of the step (percent) or seconds
  bool percent = false;  // of the case's median per-iteration step time without a slowdown
};

struct CollectiveBenchConfig {
  Backend backend = Backend::kMpi;
  std::vector<Collective> ops{Collective::kAllReduce};
  std::vector<DataType> types{DataType::kFloat32};
  ReduceOp redop = ReduceOp::kSum;
  int root = 0;
  std::vector<std::uint64_t> sizes;  // bytes requested (rounded per collective as nccl-tests does)
  int warmup_iters = 5;
  int iters = 20;                    // calls per timed block, and the number of per-iteration timings
  int blocks = 10;                   // timed blocks per case: the row's time is their median
  std::vector<bool> in_place_modes{false, true};
  bool check = true;
  int gpu = -1;                      // NCCL: this rank's CUDA device
  int corrupt_rank = -1;             // test hook: this rank flips one output element before the check
  std::vector<int> slow_ranks;       // the ranks slowed in the dose rounds (none: no dose rounds)
  std::vector<SlowDose> slow_doses;  // the doses; the first is the reference (0)
  int slow_rounds = 10;              // rounds; each runs every dose, in an order drawn per round
  std::uint64_t seed = 1;            // the dose order's seed (the same draw on every rank)
  bool start_at_barrier = false;     // timed single calls start at a barrier's exit, not a common instant
};

// Per dose, rank 0, from the dose rounds (slowdown.cpp says how). Deltas are against dose 0 of the
// same round; CIs are Hodges-Lehmann one-sample 95% intervals over rounds (stats/hodges_lehmann.h).
struct DoseFigures {
  std::string dose;                  // as given
  double set_us = 0;                 // the spin asked for (a percent dose: of the measured step)
  double achieved_us = 0;            // median over rounds of the slowed ranks' measured extra work
  double step_us = 0;                // median over rounds of the median step (latest departure - earliest start)
  double collective_us = 0;          // median over rounds of the median of the longest time in the call
  double step_delta_us = 0, step_delta_lo_us = 0, step_delta_hi_us = 0;
  double collective_delta_us = 0, collective_delta_lo_us = 0, collective_delta_hi_us = 0;
  double excess_us = 0, excess_lo_us = 0, excess_hi_us = 0;  // step delta - achieved dose delta
  std::string model;                 // slowest-rank model: consistent (excess CI holds 0), inconsistent, unknown
  int rounds = 0;
  TrialPace pace;                    // over every timed call at this dose
  int windows_missed = 0;            // its calls, summed over ranks, that a rank began after their window
  double window_period_us = 0;       // the dose rounds' calls start this far apart (start_window.h); 0: at a barrier
};

struct CollectiveRow {
  Collective op = Collective::kAllReduce;
  DataType type = DataType::kFloat32;
  ReduceOp redop = ReduceOp::kSum;
  int root = -1;                     // -1 for collectives without a root (nccl-tests' convention)
  bool in_place = false;
  std::uint64_t size = 0;            // bytes of the larger per-rank buffer
  std::uint64_t count = 0;           // its elements
  std::string unsupported;           // non-empty: not run, and why
  // Filled on rank 0 (others hold their own values only).
  double time_us = 0;                // median over blocks of the block's mean over ranks of (elapsed / iters)
  double time_min_us = 0, time_max_us = 0;  // the fastest and slowest block (same reduction)
  double time_spread = 0;            // time_max_us / time_min_us
  int blocks = 0;                    // blocks behind time_us
  double algbw_gbps = 0, busbw_gbps = 0;  // from time_us
  double iter_p50_us = 0, iter_p95_us = 0, iter_p99_us = 0, iter_max_us = 0;  // per iteration, slowest rank
  double iter_mean_p50_us = 0;       // per iteration, mean over ranks: its median (OSU-style latency)
  std::vector<double> iter_slowest_us;  // every timed iteration in order, slowest rank's time (the runner's steps)
  std::int64_t wrong = -1;           // wrong elements summed over ranks; -1: not checked
  // Who set the pace (pace.h), rank 0: every rank's times on rank 0's clock, per timed block and per
  // timed call, and the pace-setters they name; the dose rounds' figures when ranks were slowed.
  PaceTimeline block_lanes, iter_lanes;
  TrialPace block_pace, iter_pace;
  std::vector<DoseFigures> doses;
  // The timed single calls (and the dose rounds' calls) start at common instants, not at a barrier's
  // exit (start_window.h): the period between them, and the calls a rank began after their instant
  // (summed over ranks; the previous call overran the period).
  double window_period_us = 0;
  int windows_missed = 0;
};

struct CollectiveBenchResult {
  Backend backend = Backend::kMpi;
  int nranks = 1;
  std::vector<CollectiveRow> rows;
  std::int64_t wrong_total = 0;
  std::vector<double> clock_rtt_s;  // per rank, rank 0: the best round trip of its clock sync with rank 0
};

// Host bytes the benchmark needs on each rank (MPI: the send and receive buffers live there; NCCL:
// inputs and outputs are staged through it).
std::size_t bench_host_bytes(const CollectiveBenchConfig& config, int nranks);

// Collective over all ranks of the session: every rank must call it with the same config.
// host_memory (at least bench_host_bytes) is the rank's placed memory. Throws std::runtime_error on a
// failed MPI/NCCL/CUDA call (the caller must then abort the job: other ranks may be inside a collective).
CollectiveBenchResult run_collective_bench(MpiSession& session, const CollectiveBenchConfig& config,
                                           void* host_memory, std::size_t host_bytes);

}  // namespace placebench::collectives
