// Staging primitives: the host backend's copy loop against a plain memcpy loop between the same
// buffers on the same node (the target: staging >= 95% of the reference; compare the
// bytes_per_second of the two at each size), the timer's own overhead, and recording one step sample.
// `placebench-micro --arm=A` (micro_arm.h) places the buffers and the benchmark thread.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "micro_arm.h"
#include "placebench/hostpipe/host_copy.h"
#include "placebench/hostpipe/numa_buffer.h"

namespace {

using placebench::hostpipe::NumaBuffer;

struct Buffers {
  NumaBuffer src, dst;
  std::string arm = "none";
};

// Places both buffers for the arm placebench-micro runs under (micro_arm.h; main has bound this thread):
// src on the arm's memory node, dst on the device node. Without an arm, both get the default policy.
Buffers make_buffers(std::size_t bytes) {
  Buffers b;
  const auto& plan = placebench::micro::micro_arm_plan();
  b.src = NumaBuffer(bytes, plan ? plan->workers.front().mem_nodes : std::vector<int>{});
  b.dst = NumaBuffer(bytes, plan ? std::vector<int>{plan->device_numa} : std::vector<int>{});
  b.arm = placebench::micro::micro_arm_name();
  b.src.touch();
  b.dst.touch();
  return b;
}

// Batches of copies as the workload times them (about 1 MiB per batch at small sizes).
int batch_copies(std::size_t bytes) { return static_cast<int>(std::max<std::size_t>(1, (1u << 20) / bytes)); }

void BM_StagingHostCopy(benchmark::State& state) {
  auto bytes = static_cast<std::size_t>(state.range(0));
  Buffers b = make_buffers(bytes);
  int copies = batch_copies(bytes);
  for (auto _ : state) placebench::hostpipe::timed_host_copies(b.dst.data(), b.src.data(), bytes, copies);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * copies * static_cast<int64_t>(bytes));
  state.SetLabel("arm=" + b.arm);
}

void BM_ReferenceMemcpyLoop(benchmark::State& state) {
  auto bytes = static_cast<std::size_t>(state.range(0));
  Buffers b = make_buffers(bytes);
  int copies = batch_copies(bytes);
  for (auto _ : state) {
    for (int i = 0; i < copies; ++i) {
      std::memcpy(b.dst.data(), b.src.data(), bytes);
      benchmark::ClobberMemory();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * copies * static_cast<int64_t>(bytes));
  state.SetLabel("arm=" + b.arm);
}

BENCHMARK(BM_StagingHostCopy)->RangeMultiplier(16)->Range(4 << 10, 64 << 20);
BENCHMARK(BM_ReferenceMemcpyLoop)->RangeMultiplier(16)->Range(4 << 10, 64 << 20);

void BM_TimerOverhead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
}
BENCHMARK(BM_TimerOverhead);

// Recording one step sample: a timestamp pair and an append to a pre-reserved vector, as the runner does.
void BM_RecordStepSample(benchmark::State& state) {
  std::vector<std::int64_t> steps;
  steps.reserve(1 << 20);
  auto last = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto now = std::chrono::steady_clock::now();
    if (steps.size() == steps.capacity()) steps.clear();
    steps.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last).count());
    last = now;
  }
  benchmark::DoNotOptimize(steps.data());
}
BENCHMARK(BM_RecordStepSample);

}  // namespace
