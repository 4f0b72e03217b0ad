// MPI allreduce latency: placebench's collective driver against the plain loop the MPI micro-benchmarks
// use (OSU osu_allreduce: one MPI_Allreduce per iteration between barriers, each rank's mean). Run both
// on the same ranks and compare at each size (the target: within 10% for 8 B - 1 MiB):
//   mpirun -np 2 --bind-to none build/placebench-micro --benchmark_filter=MpiAllreduce
// Under mpirun only (without it the benchmarks skip, so the smoke test never starts MPI); the call
// counts are fixed so every rank makes the same collective calls; only rank 0 prints.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/mpi_info.h"
#include "placebench/collectives/mpi_session.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace {

namespace coll = placebench::collectives;
constexpr int kCalls = 2000;

coll::MpiSession* session() {
  if (!coll::mpi_built() || !coll::launched_by_mpi()) return nullptr;
  static std::unique_ptr<coll::MpiSession> s = [] {
    auto p = std::make_unique<coll::MpiSession>();
    if (p->rank() != 0 && !std::freopen("/dev/null", "w", stdout)) std::perror("freopen");
    return p;
  }();
  return s.get();
}

// OSU-style reference: barrier (untimed), one MPI_Allreduce timed, repeated; float sum.
void BM_MpiAllreduceReference(benchmark::State& state) {
  coll::MpiSession* s = session();
  if (!s) return state.SkipWithError("run under mpirun (see the file comment)");
#if PLACEBENCH_HAVE_MPI
  std::size_t count = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  std::vector<float> in(count, 1.0f), out(count);
  for (int i = 0; i < 10; ++i)  // warm-up
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = std::chrono::steady_clock::now();
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  state.counters["bytes"] = static_cast<double>(state.range(0));
#endif
}

// placebench's driver for the same calls: per-iteration p50 (slowest rank) as the time, and the
// pipelined average as a counter.
void BM_MpiAllreducePlacebench(benchmark::State& state) {
  coll::MpiSession* s = session();
  if (!s) return state.SkipWithError("run under mpirun (see the file comment)");
  coll::CollectiveBenchConfig cfg;
  cfg.sizes = {static_cast<std::uint64_t>(state.range(0))};
  cfg.in_place_modes = {false};
  cfg.iters = kCalls;
  cfg.warmup_iters = 10;
  cfg.check = false;
  std::vector<char> host(coll::bench_host_bytes(cfg, s->size()));
  coll::CollectiveRow row;
  for (auto _ : state) {
    row = coll::run_collective_bench(*s, cfg, host.data(), host.size()).rows.front();
    state.SetIterationTime(s->broadcast(row.iter_p50_us, 0) * 1e-6);
  }
  state.counters["pipelined_us"] = row.time_us;
  state.counters["p99_us"] = row.iter_p99_us;
  state.counters["bytes"] = static_cast<double>(state.range(0));
}

}  // namespace

BENCHMARK(BM_MpiAllreduceReference)->RangeMultiplier(8)->Range(8, 1 << 20)->Iterations(kCalls)->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MpiAllreducePlacebench)->RangeMultiplier(8)->Range(8, 1 << 20)->Iterations(1)->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
