// One clock for all ranks: each rank measures the offset of its steady clock to rank 0's with
// Cristian's method (ping-pongs; the round with the smallest round-trip wins; offset = rank 0's time -
// the midpoint of the round trip, error at most half that round trip).
#pragma once

#include "placebench/collectives/mpi_session.h"

namespace placebench::collectives {

// This process's steady clock (CLOCK_MONOTONIC), in seconds.
double steady_now_s();

// When this process started, on the steady clock: /proc/self/stat's starttime (clock ticks since boot,
// the same origin as CLOCK_MONOTONIC barring suspend), else (unreadable, or not within the last hour
// before now) now.
double process_start_steady_s();

struct ClockSync {
  double offset_s = 0;  // rank-0 time = local time + offset_s
  double rtt_s = 0;     // round trip of the best round (the offset's error is at most rtt_s / 2)
};

// Collective over all ranks (blocking point-to-point: call it while every rank is alive).
ClockSync sync_clock_to_rank0(MpiSession& session, int rounds = 20);

}  // namespace placebench::collectives
