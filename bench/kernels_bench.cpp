// CPU reference kernels used by the host backend: the batch checksum must run near memory bandwidth, so
// it is measured next to the plain loops that bound it (a memcpy and a sum of 64-bit words).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/memory_kernels.h"

namespace {

namespace pk = placebench::kernels;

std::vector<std::uint64_t> make_words(std::size_t bytes) {
  std::vector<std::uint64_t> words(bytes / sizeof(std::uint64_t));
  std::iota(words.begin(), words.end(), std::uint64_t{0x1234567});
  return words;
}

void size_range(benchmark::internal::Benchmark* b) { b->RangeMultiplier(8)->Range(4 << 10, 64 << 20); }

void BM_BatchChecksumCpu(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  const auto words = make_words(bytes);
  for (auto _ : state) benchmark::DoNotOptimize(pk::batch_checksum_cpu(words.data(), bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_BatchChecksumCpu)->Apply(size_range);

// Reference: the cheapest loop that reads every word (the compiler vectorises it).
void BM_SumWordsReference(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  const auto words = make_words(bytes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(words.begin(), words.end(), std::uint64_t{0}));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_SumWordsReference)->Apply(size_range);

// Reference: memcpy; bytes/s counts the bytes read (the same amount is written).
void BM_MemcpyReference(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  const auto src = make_words(bytes);
  std::vector<std::uint64_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_MemcpyReference)->Apply(size_range);

// Compute step over 64 KiB: items/s is element-iterations per second (calibrate_iterations_per_ns * 1e9).
void BM_ComputeCpu(benchmark::State& state) {
  const std::uint32_t iterations = static_cast<std::uint32_t>(state.range(0));
  std::vector<std::uint32_t> data(pk::kDefaultCalibrationElements, 1);
  for (auto _ : state) {
    pk::compute_cpu(data.data(), data.size(), iterations);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(data.size()) * iterations);
}
BENCHMARK(BM_ComputeCpu)->Arg(1)->Arg(16)->Arg(256);

// Triad: bytes/s with STREAM's count (triad_bytes_moved).
void BM_TriadCpu(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  for (auto _ : state) {
    pk::triad_cpu(a.data(), b.data(), c.data(), 3.0f, n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * pk::triad_bytes_moved(n)));
}
BENCHMARK(BM_TriadCpu)->Arg(64 << 10)->Arg(64 << 20);

}  // namespace
