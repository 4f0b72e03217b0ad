// MPI allreduce (float sum, out-of-place): placebench's collective driver against a minimal reference
// loop in the same process layout and buffer layout, size by size in one run: per size, kPairs pairs of
// (reference, placebench) in alternating order, so both see the same machine from one moment to the next.
// The reference is the plain blocking loop OSU's osu_allreduce times: a barrier, N = 1000 blocking
// MPI_Allreduce calls, each rank's mean per call, averaged over ranks. placebench is run_collective_bench
// with `placebench collective`'s defaults (10 blocks of 20 calls, 5 warm-up calls), its `time` (the
// median block, mean over ranks). Counters: each side's median over the pairs, the median pair ratio
// placebench / reference, and the last pair's block spread and per-iteration p50s (slowest rank, mean
// over ranks).
//   mpirun --oversubscribe --bind-to none -np 2 build/placebench-micro --benchmark_filter=MpiAllreduce
//   bench/collectives_compare.py (five interleaved runs on 2 and 4 ranks, the table of docs/performance.md)
// Under mpirun only (without it the benchmarks skip, so the smoke test never starts MPI); the call
// counts are fixed so every rank makes the same collective calls; only rank 0 prints.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/mpi_info.h"
#include "placebench/collectives/mpi_session.h"
#include "placebench/stats/quantile.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace {

namespace coll = placebench::collectives;
constexpr int kCalls = 1000;  // the reference's timed calls per measurement
constexpr int kPairs = 6;     // (reference, placebench) pairs per size

// Ranks other than 0 print nothing, from the first line (Google Benchmark's context) on: the launcher's
// rank is known before MPI_Init.
[[maybe_unused]] const bool kQuietRank = [] {
  if (coll::launched_by_mpi() && coll::launcher_rank() != 0 && !std::freopen("/dev/null", "w", stdout)) std::perror("freopen");
  return true;
}();

coll::MpiSession* session() {
  if (!coll::mpi_built() || !coll::launched_by_mpi()) return nullptr;
  static std::unique_ptr<coll::MpiSession> s = std::make_unique<coll::MpiSession>();
  return s.get();
}

// The reference: barrier, kCalls blocking calls, this rank's mean per call, the mean over ranks (us).
double reference_us(coll::MpiSession& s, std::size_t bytes) {
#if PLACEBENCH_HAVE_MPI
  auto count = static_cast<int>(bytes / sizeof(float));
  // The same buffer layout as placebench's driver (bench_host_bytes): page-aligned input and output (a
  // heap vector's 4 KiB buffer, 16-byte aligned, read 5-9% slower at 4 KiB on the development VM).
  std::size_t half = (bytes + 4095) / 4096 * 4096;
  std::unique_ptr<float, decltype(&std::free)> buf(static_cast<float*>(std::aligned_alloc(4096, 2 * half)), &std::free);
  float* in = buf.get();
  float* out = in + half / sizeof(float);
  std::fill(in, in + count, 1.0f);
  for (int i = 0; i < 10; ++i) MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  s.barrier();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kCalls;
  return s.sum(mine) / s.size() * 1e6;
#else
  (void)s, (void)bytes;
  return 0;
#endif
}

// The statistics library's median (Hyndman & Fan type 7: the mean of the middle two for an even count).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return placebench::stats::quantile_estimate_sorted(v, 0.5);
}

// One size: kPairs pairs of (reference, placebench's driver with the command's defaults), the order
// alternated pair by pair (ABBA...), so both sides see the same machine from one moment to the next; a
// pair lasts 2 ms at 8 B and 0.4 s at 1 MiB. Reports the median of each side and of the pair ratios
// placebench / reference (the figure the targets are about). real_time is placebench's median.
void allreduce_pairs(benchmark::State& state, std::size_t bytes) {
  coll::MpiSession* s = session();
  if (!s) return state.SkipWithError("run under mpirun (see the file comment)");
  coll::CollectiveBenchConfig cfg;
  cfg.sizes = {bytes};
  cfg.in_place_modes = {false};
  cfg.check = false;
  std::vector<char> host(coll::bench_host_bytes(cfg, s->size()));
  std::vector<double> ref, pb, ratio;
  coll::CollectiveRow row;
  for (auto _ : state) {
    for (int p = 0; p < kPairs; ++p) {
      double r = 0, b = 0;
      for (int side : {p % 2, 1 - p % 2}) {
        if (side == 0) {
          r = reference_us(*s, bytes);
        } else {
          row = coll::run_collective_bench(*s, cfg, host.data(), host.size()).rows.front();
          b = s->broadcast(row.time_us, 0);
        }
      }
      ref.push_back(r);
      pb.push_back(b);
      ratio.push_back(r > 0 ? b / r : 0);
    }
    state.SetIterationTime(median(pb) * 1e-6);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["reference_us"] = median(ref);
  state.counters["placebench_us"] = median(pb);
  state.counters["ratio"] = median(ratio);
  state.counters["block_spread"] = row.time_spread;
  state.counters["iter_p50_slowest_us"] = row.iter_p50_us;
  state.counters["iter_p50_rank_mean_us"] = row.iter_mean_p50_us;
}

// 8 B to 1 MiB (by 8x, and 1 MiB itself).
[[maybe_unused]] const bool kRegistered = [] {
  for (std::size_t bytes : {8u, 64u, 512u, 4096u, 32768u, 262144u, 1048576u})
    benchmark::RegisterBenchmark(("BM_MpiAllreducePairs/" + std::to_string(bytes)).c_str(), allreduce_pairs, bytes)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
