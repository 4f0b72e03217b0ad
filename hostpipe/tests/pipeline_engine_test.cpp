// The pipeline engine with the synthetic stage and the host consumer: input-bound classification from
// configured imbalances, checksums catching an injected corruption, and clean shutdown (no thread left)
// on a stage error, a stall and an external stop request.
#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>
#include <thread>

#include "placebench/hostpipe/pipeline/engine.h"
#include "placebench/hostpipe/pipeline/calibration.h"

using namespace placebench::hostpipe;
using namespace std::chrono_literals;

namespace {

int thread_count() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

double rate() {
  static const double r = calibrate_iterations_per_cpu_ns();
  return r;
}

constexpr std::size_t kBatchBytes = 64 << 10;  // 4 samples of 16 KiB: copies and checksums take microseconds

struct Rig {
  explicit Rig(double produce_ns_per_batch, std::chrono::nanoseconds step_compute, int prefetch = 2, int workers = 1) {
    SyntheticStageParams sp;
    sp.shape.samples = 4;
    sp.shape.sample_bytes = kBatchBytes / 4;
    sp.dataset_samples = 8;
    sp.cpu_work_ns_per_kib = produce_ns_per_batch / (kBatchBytes / 1024.0);
    sp.element_iterations_per_ns = rate();
    stage = make_synthetic_stage(sp);
    ring = std::make_unique<StagingRing>(prefetch + workers + 1, kBatchBytes, std::vector<int>{});
    consumer = make_host_consumer({{}, kBatchBytes, step_compute, rate()});
    params.workers = workers;
    params.prefetch = prefetch;
  }
  EngineResult run(const EngineHooks& hooks = {}) { return run_engine(params, *stage, *ring, *consumer, hooks); }

  std::unique_ptr<DecodeStage> stage;
  std::unique_ptr<StagingRing> ring;
  std::unique_ptr<StepConsumer> consumer;
  EngineParams params;
};

struct Shares {
  double input_bound = 0, wait = 0;
};

Shares shares(const EngineResult& r) {
  double step = 0, wait = 0, h2d = 0;
  for (const auto& s : r.steps) {
    step += static_cast<double>(s.step_ns);
    wait += static_cast<double>(s.wait_ns);
    h2d += static_cast<double>(s.h2d_ns);
  }
  return {step > 0 ? (wait + h2d) / step : 0, step > 0 ? wait / step : 0};
}

}  // namespace

// Whether this build runs under AddressSanitizer (the sanitize stage, -O0): its timings measure the
// sanitizer, so the two timing checks below skip there (their logic runs in the normal build).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// Classification checks on a shared 2-core runner: a run preempted by other jobs can miss, so each takes
// the best of a few attempts (every attempt must still be a correct, complete run). The bounds are loose
// (the classification, not the precision): the targets themselves (fast workers < 5% input-bound, the
// slow worker's wait share 0.75 +- 0.15) are measured by BM_PipelineInputBoundShares (bench/, see
// docs/performance.md), never enforced by a timed test.
constexpr int kAttempts = 10;  // each attempt ends early once it passes: a quiet runner needs one

// Whether the 1-minute load average exceeds twice the CPUs: then whole time slices of other jobs land
// inside waits, and the sum-based share measures the runner, not the pipeline.
bool oversubscribed() {
  double load = 0;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  return load > 2.0 * std::thread::hardware_concurrency();
}

TEST(PipelineEngine, FastWorkersLongComputeIsNotInputBound) {
  if (kSanitized) GTEST_SKIP() << "timing check: not meaningful under AddressSanitizer at -O0";
  double best = 1, best_median = 1;
  for (int attempt = 0; attempt < kAttempts && (best >= 0.25 || best_median >= 0.25); ++attempt) {
    Rig rig(0, 3ms, 4);
    rig.params.warmup_steps = 3;
    rig.params.steps = 30;
    EngineResult r = rig.run();
    ASSERT_EQ(r.status, "ok") << r.error;
    ASSERT_EQ(r.steps.size(), 30u);
    ASSERT_EQ(r.workers.size(), 1u);
    EXPECT_EQ(r.workers[0].batches, 33u);
    EXPECT_GT(r.measured_ns, 0);
    for (const auto& s : r.steps) EXPECT_GE(s.step_ns, s.wait_ns + s.h2d_ns + s.compute_ns);
    best = std::min(best, shares(r).input_bound);
    std::vector<double> in, step;
    for (const auto& x : r.steps) {
      in.push_back(static_cast<double>(x.wait_ns + x.h2d_ns));
      step.push_back(static_cast<double>(x.step_ns));
    }
    std::nth_element(in.begin(), in.begin() + in.size() / 2, in.end());
    std::nth_element(step.begin(), step.begin() + step.size() / 2, step.end());
    best_median = std::min(best_median, in[in.size() / 2] / step[step.size() / 2]);
  }
  EXPECT_LT(best_median, 0.25);  // the typical step: not input-bound
  if (oversubscribed())
    std::printf("note: runner oversubscribed (load > 2 x CPUs); sum-based share %.3f not enforced\n", best);
  else
    EXPECT_LT(best, 0.25);
}

// One worker producing a batch in 4 ms (of CPU time) feeding a 1 ms step: the step is paced by the
// worker, so the loop waits for 1 - 1/4 = 75% of it. Checked against the configured imbalance and
// against the imbalance as realised in the run (mean copy + compute over mean production time).
TEST(PipelineEngine, OneSlowWorkerShortStepIsHighlyInputBound) {
  if (kSanitized) GTEST_SKIP() << "timing check: not meaningful under AddressSanitizer at -O0";
  double best_configured = 1, best_realised = 1;
  for (int attempt = 0; attempt < kAttempts && (best_configured > 0.30 || best_realised > 0.20); ++attempt) {
    Rig rig(4e6, 1ms);
    rig.params.warmup_steps = 3;
    rig.params.steps = 25;
    EngineResult r = rig.run();
    ASSERT_EQ(r.status, "ok") << r.error;
    Shares s = shares(r);
    EXPECT_GE(s.input_bound, 0.20);
    const auto& w = r.workers[0];
    double produce_ns = static_cast<double>(w.produce_ns) / static_cast<double>(w.batches), busy_ns = 0;
    for (const auto& st : r.steps) busy_ns += static_cast<double>(st.h2d_ns + st.compute_ns);
    busy_ns /= static_cast<double>(r.steps.size());
    double realised = 1.0 - busy_ns / produce_ns;
    best_configured = std::min(best_configured, std::abs(s.wait - 0.75));
    best_realised = std::min(best_realised, std::abs(s.wait - realised));
  }
  EXPECT_LE(best_realised, 0.20) << "wait share vs the realised imbalance";
  // The configured 4 ms of production is CPU time: on an oversubscribed runner it takes longer in wall
  // time, so the wait share moves away from 0.75 while staying what the run realised (checked above).
  if (oversubscribed())
    std::printf("note: runner oversubscribed (load > 2 x CPUs); configured-imbalance share %.3f not enforced\n", best_configured);
  else
    EXPECT_LE(best_configured, 0.30) << "wait share vs the configured imbalance (0.75)";
}

TEST(PipelineEngine, ChecksumCatchesACorruptedBatch) {
  Rig rig(0, 0ns);
  rig.params.steps = 20;
  EngineHooks hooks;
  hooks.after_produce = [](int, std::uint64_t batch, std::byte* data, std::size_t bytes) {
    if (batch == 5) data[bytes / 2] ^= std::byte{0x10};
  };
  int before = thread_count();
  EngineResult r = rig.run(hooks);
  EXPECT_EQ(r.status, "failed");
  EXPECT_NE(r.error.find("batch 5 (worker 0) arrived corrupted"), std::string::npos) << r.error;
  EXPECT_LT(r.steps.size(), 20u);
  EXPECT_EQ(thread_count(), before);
}

TEST(PipelineEngine, WorkerErrorShutsDownCleanly) {
  Rig rig(0, 100us, 2, 2);
  rig.params.steps = 50;
  EngineHooks hooks;
  hooks.after_produce = [](int, std::uint64_t batch, std::byte*, std::size_t) {
    if (batch == 7) throw std::runtime_error("injected failure");
  };
  int before = thread_count();
  EngineResult r = rig.run(hooks);
  EXPECT_EQ(r.status, "failed");
  EXPECT_NE(r.error.find("(batch 7): injected failure"), std::string::npos) << r.error;
  EXPECT_EQ(thread_count(), before);
}

TEST(PipelineEngine, StallIsAnErrorNamingTheStage) {
  Rig rig(0, 0ns);
  rig.params.steps = 10;
  rig.params.stall_timeout = 100ms;
  EngineHooks hooks;
  hooks.after_produce = [](int, std::uint64_t batch, std::byte*, std::size_t) {
    if (batch == 2) std::this_thread::sleep_for(400ms);
  };
  int before = thread_count();
  auto t0 = std::chrono::steady_clock::now();
  EngineResult r = rig.run(hooks);
  EXPECT_EQ(r.status, "failed");
  EXPECT_NE(r.error.find("pipeline stalled: the consumer waited 0.10 s for a batch at step 2"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("worker 0: decoding batch 2 for"), std::string::npos) << r.error;
  EXPECT_EQ(r.steps.size(), 2u);  // results so far are kept
  EXPECT_EQ(thread_count(), before);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST(PipelineEngine, StopRequestEndsTheRunWithStepsSoFar) {
  Rig rig(0, 1ms, 2, 2);
  rig.params.steps = 100000;
  std::atomic<bool> stop{false};
  EngineHooks hooks;
  hooks.stop = &stop;
  int before = thread_count();
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    stop = true;
  });
  EngineResult r = rig.run(hooks);
  stopper.join();
  EXPECT_EQ(r.status, "interrupted");
  EXPECT_GT(r.steps.size(), 5u);
  EXPECT_LT(r.steps.size(), 100000u);
  EXPECT_EQ(thread_count(), before);
}

TEST(PipelineEngine, RefusesImpossibleParameters) {
  Rig rig(0, 0ns);
  rig.params.workers = 0;
  EXPECT_THROW(rig.run(), std::invalid_argument);
  rig.params.workers = 1;
  rig.params.prefetch = 4;  // ring has 4 slots < 4 + 1
  EXPECT_THROW(rig.run(), std::invalid_argument);
}
