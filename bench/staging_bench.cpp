// Staging primitives: the host backend's copy loop against a plain memcpy loop between the same
// buffers on the same node (the target: staging >= 95% of the reference; compare the
// bytes_per_second of the two at each size), the timer's own overhead, and recording one step sample.
// PLACEBENCH_MICRO_ARM=local|remote|... applies that arm (device node 0, or PLACEBENCH_MICRO_DEVICE_NUMA)
// to the benchmark thread and buffers first; default: no binding.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "placebench/harness/placement/record.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/hostpipe/host_copy.h"
#include "placebench/hostpipe/numa_buffer.h"

namespace {

using placebench::hostpipe::NumaBuffer;

struct Buffers {
  NumaBuffer src, dst;
  std::string arm = "none";
};

// Applies PLACEBENCH_MICRO_ARM (if set) to this thread and places both buffers: src on the arm's
// memory node, dst on the device node.
Buffers make_buffers(std::size_t bytes) {
  using namespace placebench::harness;
  Buffers b;
  const char* arm = std::getenv("PLACEBENCH_MICRO_ARM");
  if (!arm || !*arm) {
    b.src = NumaBuffer(bytes, {});
    b.dst = NumaBuffer(bytes, {});
  } else {
    Inventory inv = build_inventory(Topology::load_live());
    PlanRequest req;
    req.arms = parse_arm_list(arm, "PLACEBENCH_MICRO_ARM");
    if (const char* n = std::getenv("PLACEBENCH_MICRO_DEVICE_NUMA")) req.device.device_numa = std::atoi(n);
    req.allow_degenerate = true;
    ArmPlan plan = plan_arms(inv, req).front();
    PlacedWorker placed = apply_placement(plan, 0, bytes);
    b.src = std::move(placed.buffer);
    b.dst = NumaBuffer(bytes, {plan.device_numa});
    b.arm = arm;
  }
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
