// MPI allreduce (float sum, out-of-place): placebench's collective driver against a minimal reference
// loop in the same process layout, size by size in one run (reference, then placebench, per size, so
// both see the same machine). The reference is the plain blocking loop OSU's osu_allreduce times: a
// barrier, N = 1000 blocking MPI_Allreduce calls, each rank's mean per call, averaged over ranks.
// placebench is run_collective_bench with `placebench collective`'s defaults (10 blocks of 20 calls,
// 5 warm-up calls), reporting its `time` (the median block, mean over ranks) and, as counters, the block
// spread and the per-iteration p50s (slowest rank, mean over ranks).
//   mpirun --oversubscribe --bind-to none -np 2 build/placebench-micro --benchmark_filter=MpiAllreduce
//   bench/collectives_compare.py (five interleaved runs on 2 and 4 ranks, the table of docs/performance.md)
// Under mpirun only (without it the benchmarks skip, so the smoke test never starts MPI); the call
// counts are fixed so every rank makes the same collective calls; only rank 0 prints.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/mpi_info.h"
#include "placebench/collectives/mpi_session.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace {

namespace coll = placebench::collectives;
constexpr int kCalls = 1000;  // the reference's timed calls per size

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

// The reference: barrier, kCalls blocking calls, this rank's mean per call, the mean over ranks.
void reference_loop(benchmark::State& state, std::size_t bytes) {
  coll::MpiSession* s = session();
  if (!s) return state.SkipWithError("run under mpirun (see the file comment)");
#if PLACEBENCH_HAVE_MPI
  auto count = static_cast<int>(bytes / sizeof(float));
  std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(in.size());
  for (int i = 0; i < 10; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (auto _ : state) {
    s->barrier();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kCalls;
    state.SetIterationTime(s->sum(mine) / s->size());
  }
#endif
  state.counters["bytes"] = static_cast<double>(bytes);
}

// placebench's driver for the same calls, with the command's defaults.
void placebench_driver(benchmark::State& state, std::size_t bytes) {
  coll::MpiSession* s = session();
  if (!s) return state.SkipWithError("run under mpirun (see the file comment)");
  coll::CollectiveBenchConfig cfg;
  cfg.sizes = {bytes};
  cfg.in_place_modes = {false};
  cfg.check = false;
  std::vector<char> host(coll::bench_host_bytes(cfg, s->size()));
  coll::CollectiveRow row;
  for (auto _ : state) {
    row = coll::run_collective_bench(*s, cfg, host.data(), host.size()).rows.front();
    state.SetIterationTime(s->broadcast(row.time_us, 0) * 1e-6);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["block_spread"] = row.time_spread;
  state.counters["iter_p50_slowest_us"] = row.iter_p50_us;
  state.counters["iter_p50_rank_mean_us"] = row.iter_mean_p50_us;
}

// Per size, the reference and then placebench: 8 B to 1 MiB (by 8x, and 1 MiB itself).
[[maybe_unused]] const bool kRegistered = [] {
  for (std::size_t bytes : {8u, 64u, 512u, 4096u, 32768u, 262144u, 1048576u}) {
    std::string suffix = "/" + std::to_string(bytes);
    benchmark::RegisterBenchmark(("BM_MpiAllreduceReference" + suffix).c_str(), reference_loop, bytes)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_MpiAllreducePlacebench" + suffix).c_str(), placebench_driver, bytes)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
