// Calibration of the pipeline's CPU work against the calling thread's CPU clock. kernels'
// calibrate_iterations_per_ns() times with the wall clock, so on a loaded machine preemption makes the
// rate (and every calibrated amount of work) too small; counting only the thread's own CPU time keeps
// "N ns of CPU work per KiB" a fixed amount of work, which then takes longer in wall time when the CPU
// is shared -- the effect contention experiments want to see.
#pragma once
#include <chrono>
#include <cstdint>

namespace placebench::hostpipe {

// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in ns.
std::int64_t thread_cpu_ns();

// The rate of kernels::compute_cpu on this thread in element-iterations per CPU-ns, over a cache-resident
// working set, for at least `min_cpu_time` of CPU time after a warm-up.
double calibrate_iterations_per_cpu_ns(std::chrono::nanoseconds min_cpu_time = std::chrono::milliseconds(20));

}  // namespace placebench::hostpipe
