// Counted work for the gang's steps under a CPU share cap (gang.h, pace_timing.h).
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../pace_timing.h"
#include "placebench/collectives/clock_sync.h"
#include "placebench/collectives/gang.h"

namespace placebench::collectives {
namespace {

constexpr double kSampleS = 20e-3;
constexpr int kSamples = 3;

// One unit: 1024 steps of a 64-bit LCG, each depending on the one before (no vectorizing it away).
std::uint64_t unit(std::uint64_t x) {
  for (int i = 0; i < 1024; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

volatile std::uint64_t g_sink = 0;

}  // namespace

namespace detail {

double run_work_units(std::uint64_t units) {
  double start = steady_now_s(), yielded = start;
  std::uint64_t x = g_sink;
  for (std::uint64_t u = 0; u < units; ++u) {
    x = unit(x);
    double now = steady_now_s();
    if (now - yielded >= detail::kSpinYieldS) sched_yield(), yielded = now;
  }
  g_sink = x;
  return steady_now_s() - start;
}

}  // namespace detail

double measure_work_units_per_s() {
  double best = 0;
  for (int s = 0; s < kSamples; ++s) {
    std::uint64_t x = g_sink, units = 0;
    double start = steady_now_s(), now = start;
    while (now - start < kSampleS) {
      x = unit(x);
      ++units;
      now = steady_now_s();
    }
    g_sink = x;
    best = std::max(best, static_cast<double>(units) / (now - start));
  }
  return best;
}

}  // namespace placebench::collectives
