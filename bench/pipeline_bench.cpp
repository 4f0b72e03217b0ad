// Pipeline benchmarks (issue: the pipeline's own overhead is not the bottleneck).
//   BM_PipelineQueueHandoff   producer -> consumer through the prefetch queue (depth 4): time per batch
//                             hand-off, target <= 2 us.
//   BM_PipelineQueuePingPong  one batch in flight: the wake-up latency a step sees when the queue is empty.
//   BM_PipelineVsSlowestStage the whole pipeline (host backend, synthetic stage, one worker) against
//                             each stage run alone: throughput >= 90% of min(F, P, G), the rates of the
//                             producers (one worker's rate x W), the copy and the compute (DS-Analyzer).
//                             Counters: batches_s, slowest_stage_batches_s, vs_slowest_stage (>= 0.9),
//                             vs_producer_in_pipeline (the engine's own share, machine drift removed),
//                             producer_beside_consumer (the machine's share: a core slowed by its
//                             busy neighbour, no engine involved).
//   BM_PipelineInputBoundShares the input-bound and wait shares of two configured imbalances (below).
#include <benchmark/benchmark.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <thread>
#include <vector>

#include "placebench/hostpipe/pipeline/calibration.h"
#include "placebench/hostpipe/pipeline/engine.h"

namespace {

using namespace placebench::hostpipe;
using Clock = std::chrono::steady_clock;

struct Token {
  int slot = 0;
  std::uint64_t batch = 0, checksum = 0;
  int worker = 0;
};

void BM_PipelineQueueHandoff(benchmark::State& state) {
  constexpr int kBatches = 10000;
  for (auto _ : state) {
    BoundedQueue<Token> q(4);
    std::thread producer([&] {
      for (int i = 0; i < kBatches; ++i) q.push(Token{i % 6, static_cast<std::uint64_t>(i), 0, 0}, Clock::now() + std::chrono::seconds(10));
    });
    Token t;
    for (int i = 0; i < kBatches; ++i) q.pop(t, Clock::now() + std::chrono::seconds(10));
    producer.join();
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations() * kBatches);
  state.counters["ns_per_batch"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBatches), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PipelineQueueHandoff)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_PipelineQueuePingPong(benchmark::State& state) {
  constexpr int kRounds = 2000;
  for (auto _ : state) {
    BoundedQueue<int> there(1), back(1);
    std::thread echo([&] {
      int v;
      for (int i = 0; i < kRounds; ++i) {
        there.pop(v, Clock::now() + std::chrono::seconds(10));
        back.push(v, Clock::now() + std::chrono::seconds(10));
      }
    });
    int v = 0;
    for (int i = 0; i < kRounds; ++i) {
      there.push(i, Clock::now() + std::chrono::seconds(10));
      back.pop(v, Clock::now() + std::chrono::seconds(10));
    }
    echo.join();
  }
  state.counters["ns_per_round_trip"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kRounds), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PipelineQueuePingPong)->UseRealTime()->Unit(benchmark::kMillisecond);

constexpr std::size_t kBatchBytes = 256 << 10;
constexpr int kSamples = 8;

struct Parts {
  std::unique_ptr<DecodeStage> stage;
  std::unique_ptr<StepConsumer> consumer;
};

struct Shares {
  double input_bound_sum = 1, input_bound_median = 1, wait = 0;
};

Parts make_parts(double rate) {
  SyntheticStageParams sp;
  sp.shape.samples = kSamples;
  sp.shape.sample_bytes = kBatchBytes / kSamples;
  sp.dataset_samples = 16;
  sp.cpu_work_ns_per_kib = 4000;  // ~1 ms of decode per batch: the producer is the slowest stage
  sp.element_iterations_per_ns = rate;
  return {make_synthetic_stage(sp), make_host_consumer({{}, kBatchBytes, std::chrono::microseconds(300), rate})};
}

// Batches per second of `fn` run back to back for ~`seconds`.
template <class Fn>
double rate_alone(Fn fn, double seconds) {
  int n = 0;
  auto t0 = Clock::now();
  do {
    fn();
    ++n;
  } while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds);
  return n / std::chrono::duration<double>(Clock::now() - t0).count();
}

// The stage rates alone, each measured for a few tens of milliseconds.
struct StageRates {
  double f = 0, p = 0, g = 0;  // producer (one worker), copy, compute: batches/s
  double slowest() const { return std::min({f, p, g}); }
};

// Pins the calling thread to `cpu` (no-op for -1).
void pin_to(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

// The producer is measured on the worker's CPU and the copy and compute on the consumer's, as they run
// in the pipeline.
StageRates stages_alone(Parts& parts, StageWorker& worker, std::vector<std::byte>& batch, std::uint64_t& index,
                        int worker_cpu, int consumer_cpu) {
  StageRates r;
  pin_to(worker_cpu);
  r.f = rate_alone([&] { worker.produce(index++, batch.data()); }, 0.02);
  pin_to(consumer_cpu);
  r.p = rate_alone([&] { parts.consumer->copy_in(batch.data(), kBatchBytes); }, 0.01);
  r.g = rate_alone([&] { benchmark::DoNotOptimize(parts.consumer->compute(kBatchBytes)); }, 0.02);
  return r;
}

// The producer on the worker's CPU while the consumer's copy + compute loop runs on the consumer's CPU,
// with no engine between them: what the machine itself does to a core whose neighbour works. On the
// 2-vCPU dev VM some processes see the producer 25-90% slower beside a busy neighbour (vCPUs that
// share a physical core), which no pipeline can hide.
double producer_beside_consumer(Parts& parts, std::uint64_t& index, int worker_cpu, int consumer_cpu) {
  std::atomic<bool> producing{true};
  double f = 0;
  std::thread producer([&] {
    pin_to(worker_cpu);
    auto worker = parts.stage->make_worker();
    std::vector<std::byte> out(kBatchBytes);
    f = rate_alone([&] { worker->produce(index++, out.data()); }, 0.02);
    producing = false;
  });
  pin_to(consumer_cpu);
  std::vector<std::byte> in(kBatchBytes);
  while (producing.load()) {
    parts.consumer->copy_in(in.data(), kBatchBytes);
    benchmark::DoNotOptimize(parts.consumer->compute(kBatchBytes));
  }
  producer.join();
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Each repetition brackets one pipeline run (40 steps, ~40 ms) between two stage-alone measurements
// and compares it with their mean; the counters are medians over repetitions. The bracket matters on
// shared VMs: this 2-vCPU VM's speed drifts by +-30% over ~100 ms phases (the producer alone took
// 555 us or 750 us per batch, on either CPU, in alternating phases), so a stage rate taken once, or
// only before the pipeline, compares two different machines.
//
// Two more counters split a shortfall between the engine and the machine:
//   vs_producer_in_pipeline     throughput over the rate the run's own worker produced at (batches over
//                               decode + checksum wall time): what the engine adds (hand-off, ring,
//                               waits), whatever the machine did meanwhile;
//   producer_beside_consumer    the producer's rate beside the consumer's loop (no engine) over its rate
//                               alone: below 1 the machine slows a core when its neighbour works.
void BM_PipelineVsSlowestStage(benchmark::State& state) {
  double rate = calibrate_iterations_per_cpu_ns();
  Parts parts = make_parts(rate);
  std::vector<std::byte> batch(kBatchBytes);
  auto worker = parts.stage->make_worker();
  std::uint64_t index = 0;
  std::vector<double> ratios, pipeline_rates, slowest_rates, in_pipeline, beside;
  // The worker and the consumer each get a CPU of their own (the first two allowed), as an arm pins
  // them; each stage alone is measured on the CPU it runs on in the pipeline, because the vCPUs of a
  // shared VM run at different speeds at the same moment.
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof allowed, &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const int worker_cpu = cpus.size() == 2 ? cpus[0] : -1, consumer_cpu = cpus.size() == 2 ? cpus[1] : -1;
  EngineHooks hooks;
  hooks.on_worker_start = [&](int) { pin_to(worker_cpu); };
  for (auto _ : state) {
    StageRates before = stages_alone(parts, *worker, batch, index, worker_cpu, consumer_cpu);
    StagingRing ring(4, kBatchBytes, {});
    EngineParams params;
    params.workers = 1;
    params.prefetch = 2;
    params.warmup_steps = 3;
    params.steps = 40;
    EngineResult r = run_engine(params, *parts.stage, ring, *parts.consumer, hooks);
    double f_beside = producer_beside_consumer(parts, index, worker_cpu, consumer_cpu);
    StageRates after = stages_alone(parts, *worker, batch, index, worker_cpu, consumer_cpu);
    if (r.status != "ok") {
      state.SkipWithError(r.error.c_str());
      return;
    }
    double throughput = static_cast<double>(r.steps.size()) / (static_cast<double>(r.measured_ns) / 1e9);
    double slowest = (before.slowest() + after.slowest()) / 2;
    const WorkerReport& w = r.workers.front();
    ratios.push_back(throughput / slowest);
    pipeline_rates.push_back(throughput);
    slowest_rates.push_back(slowest);
    beside.push_back(f_beside / ((before.f + after.f) / 2));
    in_pipeline.push_back(throughput / (static_cast<double>(w.batches) / (static_cast<double>(w.produce_ns) / 1e9)));
  }
  sched_setaffinity(0, sizeof allowed, &allowed);
  state.counters["batches_s"] = median(pipeline_rates);
  state.counters["slowest_stage_batches_s"] = median(slowest_rates);
  state.counters["vs_slowest_stage"] = median(ratios);  // target >= 0.9
  state.counters["vs_slowest_stage_min"] = *std::min_element(ratios.begin(), ratios.end());
  state.counters["vs_producer_in_pipeline"] = median(in_pipeline);
  state.counters["producer_beside_consumer"] = median(beside);
}
BENCHMARK(BM_PipelineVsSlowestStage)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(15);

// The input-bound shares of two configured imbalances (the targets the unit tests once enforced by
// timing; there they are now loose correctness bounds):
//   fast workers, 3 ms step (0 ns of production, prefetch 4): (wait + copy) / step, target < 0.05
//     (counters input_bound_sum, input_bound_median: the share of the summed and of the typical step);
//   one worker producing in 4 ms of CPU time, 1 ms step: the loop waits 1 - 1/4 = 75% of the step,
//     target |wait share - 0.75| <= 0.15 (wait_share), and within 0.10 of the imbalance the run
//     realised (mean copy + compute over mean production: wait_vs_realised).
// Medians over the repetitions.
Shares engine_shares(double produce_ns_per_batch, std::chrono::nanoseconds step, int prefetch, int steps,
                     double rate, double* realised_gap) {
  constexpr std::size_t kBytes = 64 << 10;
  SyntheticStageParams sp;
  sp.shape.samples = 4;
  sp.shape.sample_bytes = kBytes / 4;
  sp.dataset_samples = 8;
  sp.cpu_work_ns_per_kib = produce_ns_per_batch / (kBytes / 1024.0);
  sp.element_iterations_per_ns = rate;
  auto stage = make_synthetic_stage(sp);
  StagingRing ring(prefetch + 2, kBytes, {});
  auto consumer = make_host_consumer({{}, kBytes, step, rate});
  EngineParams params;
  params.workers = 1;
  params.prefetch = prefetch;
  params.warmup_steps = 3;
  params.steps = steps;
  EngineResult r = run_engine(params, *stage, ring, *consumer, {});
  Shares out;
  if (r.status != "ok" || r.steps.empty()) return out;
  std::vector<double> in, total;
  double step_sum = 0, wait_sum = 0, busy = 0;
  for (const auto& x : r.steps) {
    in.push_back(static_cast<double>(x.wait_ns + x.h2d_ns));
    total.push_back(static_cast<double>(x.step_ns));
    step_sum += static_cast<double>(x.step_ns);
    wait_sum += static_cast<double>(x.wait_ns);
    busy += static_cast<double>(x.h2d_ns + x.compute_ns);
  }
  double in_sum = 0;
  for (double v : in) in_sum += v;
  out.input_bound_sum = in_sum / step_sum;
  out.input_bound_median = median(in) / median(total);
  out.wait = wait_sum / step_sum;
  const WorkerReport& w = r.workers.front();
  double produce = static_cast<double>(w.produce_ns) / static_cast<double>(w.batches);
  *realised_gap = std::abs(out.wait - (1.0 - busy / static_cast<double>(r.steps.size()) / produce));
  return out;
}

void BM_PipelineInputBoundShares(benchmark::State& state) {
  double rate = calibrate_iterations_per_cpu_ns(), gap = 0;
  std::vector<double> sum, med, wait, realised;
  for (auto _ : state) {
    Shares fast = engine_shares(0, std::chrono::milliseconds(3), 4, 30, rate, &gap);
    sum.push_back(fast.input_bound_sum);
    med.push_back(fast.input_bound_median);
    Shares slow = engine_shares(4e6, std::chrono::milliseconds(1), 2, 25, rate, &gap);
    wait.push_back(slow.wait);
    realised.push_back(gap);
  }
  state.counters["input_bound_sum"] = median(sum);        // target < 0.05
  state.counters["input_bound_median"] = median(med);     // target < 0.05
  state.counters["wait_share"] = median(wait);            // target 0.75 +- 0.15
  state.counters["wait_vs_realised"] = median(realised);  // target <= 0.10
}
BENCHMARK(BM_PipelineInputBoundShares)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
