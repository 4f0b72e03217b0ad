// Cost of the system sampler (target: < 1% of one core at the default 100 ms interval). The
// pct_of_core_at_100ms counter is the tick's CPU time (user + kernel) divided by 100 ms, in percent.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <ctime>

#include "placebench/hostpipe/sysmetrics/proc_readers.h"
#include "placebench/hostpipe/sysmetrics/sampler.h"

using namespace placebench::hostpipe::sysmetrics;

namespace {

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// (CPU time per iteration / 100 ms) * 100%, from this thread's CPU clock (user + kernel) over the loop.
void report_overhead(benchmark::State& state, double cpu_s) {
  if (state.iterations() == 0) return;
  state.counters["pct_of_core_at_100ms"] = 100.0 * cpu_s / static_cast<double>(state.iterations()) / 0.1;
}

void tick(benchmark::State& state, SamplerOptions options) {
  SystemSampler sampler(std::move(options));
  sampler.take_baseline();
  double start = thread_cpu_s();
  for (auto _ : state) benchmark::DoNotOptimize(sampler.take_sample());
  report_overhead(state, thread_cpu_s() - start);
  state.SetLabel(std::to_string(sampler.cpus().size()) + " CPUs, " + std::to_string(sampler.nic_names().size()) +
                 " NICs");
}

}  // namespace

// One tick on this machine: /proc/stat, PSI, statm, stat, every NIC's two counters; per-CPU
// utilisation of every CPU.
static void BM_SysmetricsTick(benchmark::State& state) { tick(state, SamplerOptions{}); }
BENCHMARK(BM_SysmetricsTick);

// The largest part of a tick: the kernel formats all of /proc/stat (including the per-IRQ line).
static void BM_SysmetricsProcStatRead(benchmark::State& state) {
  ProcFile file("/proc/stat");
  std::string text;
  double start = thread_cpu_s();
  for (auto _ : state) {
    file.read(text);
    benchmark::DoNotOptimize(parse_proc_stat(text));
  }
  report_overhead(state, thread_cpu_s() - start);
}
BENCHMARK(BM_SysmetricsProcStatRead);

// The summary at stop() of a 60 s trial at 100 ms (600 samples); once per trial, not per tick.
static void BM_SysmetricsSummarise600(benchmark::State& state) {
  SystemSampler sampler(SamplerOptions{});
  sampler.take_baseline();
  Sample s = sampler.take_sample();
  s.dt_s = 0.1f;
  std::vector<Sample> series(600, s);
  for (auto _ : state) benchmark::DoNotOptimize(sampler.summarise(series));
}
BENCHMARK(BM_SysmetricsSummarise600);

// With GPU 0 through NVML: registered only where libnvidia-ml.so.1 loads, so CPU-only nodes skip it.
static void BM_SysmetricsTickWithGpu(benchmark::State& state) {
  SamplerOptions options;
  options.gpu_index = 0;
  SystemSampler probe(options);
  if (!probe.summarise({}).gpu.available) {
    state.SkipWithError(("GPU 0 unavailable: " + probe.summarise({}).gpu.unavailable_reason).c_str());
    return;
  }
  tick(state, options);
}
static const bool kGpuTickRegistered = [] {
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!nvml) return false;
  dlclose(nvml);
  benchmark::RegisterBenchmark("BM_SysmetricsTickWithGpu", BM_SysmetricsTickWithGpu);
  return true;
}();
