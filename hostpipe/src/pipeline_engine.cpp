// The pipeline engine (see pipeline/engine.h): worker threads, the consumer loop, stall detection and
// shutdown.
#include "placebench/hostpipe/pipeline/engine.h"

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "placebench/hostpipe/pipeline/calibration.h"
#include "placebench/kernels/batch_checksum.h"

namespace placebench::hostpipe {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStopPoll = std::chrono::milliseconds(20);

std::int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

std::int64_t read_clock_ns(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string seconds_text(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", static_cast<double>(ns) / 1e9);
  return buf;
}

// What a worker is doing, for stall messages.
enum class WorkerStage { kStarting, kAcquiring, kProducing, kEnqueueing, kDone };

const char* stage_text(WorkerStage s) {
  switch (s) {
    case WorkerStage::kStarting: return "starting";
    case WorkerStage::kAcquiring: return "waiting for a free staging buffer for batch";
    case WorkerStage::kProducing: return "decoding batch";
    case WorkerStage::kEnqueueing: return "waiting for room in the prefetch queue for batch";
    case WorkerStage::kDone: return "done";
  }
  return "?";
}

enum class ConsumerStage { kWaiting, kCopying, kComputing, kDone };

const char* consumer_text(ConsumerStage s) {
  switch (s) {
    case ConsumerStage::kWaiting: return "waiting for a batch";
    case ConsumerStage::kCopying: return "copying a batch to the device";
    case ConsumerStage::kComputing: return "computing";
    case ConsumerStage::kDone: return "done";
  }
  return "?";
}

struct Ready {
  int slot = -1;
  std::uint64_t batch = 0;
  std::uint64_t checksum = 0;
  int worker = 0;
};

struct WorkerState {
  std::atomic<WorkerStage> stage{WorkerStage::kStarting};
  std::atomic<std::uint64_t> batch{0};
  std::atomic<std::int64_t> since_ns{0};     // steady clock, ns since the run's start
  std::atomic<bool> clock_valid{false};
  clockid_t clock{};
  std::atomic<std::int64_t> final_cpu_ns{-1};  // its CPU time when it finished
  std::int64_t cpu_at_measure_ns = 0;
  WorkerReport report;
};

class Engine {
 public:
  Engine(const EngineParams& p, const DecodeStage& stage, StagingRing& ring, StepConsumer& consumer, const EngineHooks& hooks)
      : p_(p), stage_(stage), ring_(ring), consumer_(consumer), hooks_(hooks),
        ready_(static_cast<std::size_t>(p.prefetch)), states_(static_cast<std::size_t>(p.workers)) {
    total_ = static_cast<std::uint64_t>(p.warmup_steps) + static_cast<std::uint64_t>(p.steps);
  }

  EngineResult run() {
    result_.steps.reserve(static_cast<std::size_t>(p_.steps));
    std::vector<std::thread> threads;
    try {
      for (int w = 0; w < p_.workers; ++w) threads.emplace_back([this, w] { worker_main(w); });
      consume();
    } catch (const std::exception& e) {
      fail(std::string("consumer: ") + e.what());
    }
    shutdown();
    for (auto& t : threads) t.join();
    finish_reports();
    return std::move(result_);
  }

 private:
  std::int64_t now_ns() const { return ns_between(start_, Clock::now()); }

  void set_stage(int w, WorkerStage s, std::uint64_t batch) {
    auto& st = states_[static_cast<std::size_t>(w)];
    st.batch = batch;
    st.since_ns = now_ns();
    st.stage = s;
  }

  void fail(const std::string& message) {
    {
      std::lock_guard lock(error_mutex_);
      if (error_.empty()) error_ = message;
    }
    shutdown();
  }

  void shutdown() {
    stopping_ = true;
    ready_.cancel();
    ring_.cancel();
  }

  std::string workers_text() const {
    std::string out;
    std::int64_t now = now_ns();
    for (std::size_t w = 0; w < states_.size(); ++w) {
      const auto& st = states_[w];
      WorkerStage s = st.stage.load();
      out += (w ? "; worker " : "worker ") + std::to_string(w) + ": " + stage_text(s);
      if (s == WorkerStage::kAcquiring || s == WorkerStage::kProducing || s == WorkerStage::kEnqueueing)
        out += " " + std::to_string(st.batch.load()) + " for " + seconds_text(now - st.since_ns.load());
    }
    return out;
  }

  std::string consumer_state_text() const {
    return std::string(consumer_text(consumer_stage_.load())) + " at step " + std::to_string(step_.load());
  }

  void worker_main(int w) {
    auto& st = states_[static_cast<std::size_t>(w)];
    if (pthread_getcpuclockid(pthread_self(), &st.clock) == 0) st.clock_valid = true;
    try {
      if (hooks_.on_worker_start) hooks_.on_worker_start(w);
      std::unique_ptr<StageWorker> producer = stage_.make_worker();
      const std::size_t bytes = stage_.shape().batch_bytes();
      while (!stopping_) {
        std::uint64_t b = next_batch_.fetch_add(1);
        if (b >= total_) break;
        set_stage(w, WorkerStage::kAcquiring, b);
        int slot = -1;
        QueueStatus got = ring_.acquire(slot, Clock::now() + p_.stall_timeout);
        if (got == QueueStatus::kCancelled) break;
        if (got == QueueStatus::kTimeout) {
          fail("pipeline stalled: worker " + std::to_string(w) + " waited " + seconds_text(p_.stall_timeout.count()) +
               " for a free staging buffer (batch " + std::to_string(b) + "); the consumer is " + consumer_state_text());
          break;
        }
        set_stage(w, WorkerStage::kProducing, b);
        auto t0 = Clock::now();
        std::int64_t cpu0 = thread_cpu_ns();
        std::byte* data = ring_.slot(slot);
        producer->produce(b, data);
        std::uint64_t sum = kernels::batch_checksum_cpu(data, bytes);
        if (hooks_.after_produce) hooks_.after_produce(w, b, data, bytes);
        st.report.produce_ns += ns_between(t0, Clock::now());
        st.report.produce_cpu_ns += thread_cpu_ns() - cpu0;
        ++st.report.batches;
        set_stage(w, WorkerStage::kEnqueueing, b);
        QueueStatus put = ready_.push(Ready{slot, b, sum, w}, Clock::now() + p_.stall_timeout);
        if (put == QueueStatus::kCancelled) break;
        if (put == QueueStatus::kTimeout) {
          fail("pipeline stalled: worker " + std::to_string(w) + " waited " + seconds_text(p_.stall_timeout.count()) +
               " to queue batch " + std::to_string(b) + " (prefetch queue full); the consumer is " + consumer_state_text());
          break;
        }
      }
    } catch (const std::exception& e) {
      fail("worker " + std::to_string(w) + " (batch " + std::to_string(st.batch.load()) + "): " + e.what());
    }
    st.final_cpu_ns = st.clock_valid ? read_clock_ns(st.clock) : 0;
    st.stage = WorkerStage::kDone;
  }

  bool stop_requested() const { return hooks_.stop && hooks_.stop->load(std::memory_order_relaxed); }

  // Pops the next batch, polling the external stop request; false when the run ends instead.
  bool next_ready(Ready& item) {
    auto deadline = Clock::now() + p_.stall_timeout;
    for (;;) {
      if (stop_requested()) {
        interrupted_ = true;
        return false;
      }
      auto now = Clock::now();
      QueueStatus s = ready_.pop(item, std::min(deadline, now + kStopPoll));
      if (s == QueueStatus::kOk) return true;
      if (s == QueueStatus::kCancelled) return false;
      if (Clock::now() >= deadline) {
        fail("pipeline stalled: the consumer waited " + seconds_text(p_.stall_timeout.count()) + " for a batch at step " +
             std::to_string(step_.load()) + "; " + workers_text());
        return false;
      }
    }
  }

  void measure_start() {
    for (auto& st : states_) {
      std::int64_t cpu = st.clock_valid && st.stage.load() != WorkerStage::kDone ? read_clock_ns(st.clock) : -1;
      st.cpu_at_measure_ns = cpu >= 0 ? cpu : std::max<std::int64_t>(st.final_cpu_ns.load(), 0);
    }
    getrusage(RUSAGE_SELF, &usage_at_measure_);
  }

  void consume() {
    auto t0 = Clock::now();
    Clock::time_point measure_begin = t0;
    for (std::uint64_t step = 0; step < total_ && !stopping_; ++step) {
      step_ = step;
      if (step == static_cast<std::uint64_t>(p_.warmup_steps)) {
        measure_start();
        t0 = measure_begin = Clock::now();
      }
      consumer_stage_ = ConsumerStage::kWaiting;
      int depth = static_cast<int>(ready_.size());
      Ready item;
      if (!next_ready(item)) break;
      auto t1 = Clock::now();
      consumer_stage_ = ConsumerStage::kCopying;
      const std::size_t bytes = stage_.shape().batch_bytes();
      consumer_.copy_in(ring_.slot(item.slot), bytes);
      auto t2 = Clock::now();
      ring_.release(item.slot);
      consumer_stage_ = ConsumerStage::kComputing;
      std::uint64_t sum = consumer_.compute(bytes);
      auto t3 = Clock::now();
      if (sum != item.checksum) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "batch %" PRIu64 " (worker %d) arrived corrupted: the consuming kernel's checksum %016" PRIx64
                      " differs from the producer's %016" PRIx64,
                      item.batch, item.worker, sum, item.checksum);
        fail(buf);
        break;
      }
      if (step >= static_cast<std::uint64_t>(p_.warmup_steps))
        result_.steps.push_back({ns_between(t0, t1), ns_between(t1, t2), ns_between(t2, t3), ns_between(t0, t3), depth,
                                 item.worker, item.batch});
      t0 = t3;
    }
    consumer_stage_ = ConsumerStage::kDone;
    if (!result_.steps.empty()) result_.measured_ns = ns_between(measure_begin, t0);
    measured_ = static_cast<std::uint64_t>(p_.warmup_steps) < total_ && step_.load() >= static_cast<std::uint64_t>(p_.warmup_steps);
  }

  void finish_reports() {
    rusage end{};
    getrusage(RUSAGE_SELF, &end);
    result_.resources.peak_rss_bytes = static_cast<std::int64_t>(end.ru_maxrss) * 1024;
    if (measured_) {
      result_.resources.minor_faults = end.ru_minflt - usage_at_measure_.ru_minflt;
      result_.resources.major_faults = end.ru_majflt - usage_at_measure_.ru_majflt;
    }
    for (auto& st : states_) {
      WorkerReport r = st.report;
      if (measured_) r.cpu_ns = std::max<std::int64_t>(0, st.final_cpu_ns.load() - st.cpu_at_measure_ns);
      result_.workers.push_back(r);
    }
    std::lock_guard lock(error_mutex_);
    if (!error_.empty()) {
      result_.status = "failed";
      result_.error = error_;
    } else if (interrupted_) {
      result_.status = "interrupted";
    }
  }

  EngineParams p_;
  const DecodeStage& stage_;
  StagingRing& ring_;
  StepConsumer& consumer_;
  const EngineHooks& hooks_;
  BoundedQueue<Ready> ready_;
  std::vector<WorkerState> states_;
  std::uint64_t total_ = 0;
  Clock::time_point start_ = Clock::now();
  std::atomic<std::uint64_t> next_batch_{0};
  std::atomic<std::uint64_t> step_{0};
  std::atomic<ConsumerStage> consumer_stage_{ConsumerStage::kWaiting};
  std::atomic<bool> stopping_{false};
  bool interrupted_ = false, measured_ = false;
  std::mutex error_mutex_;
  std::string error_;
  rusage usage_at_measure_{};
  EngineResult result_;
};

}  // namespace

EngineResult run_engine(const EngineParams& params, const DecodeStage& stage, StagingRing& ring, StepConsumer& consumer,
                        const EngineHooks& hooks) {
  if (params.workers < 1) throw std::invalid_argument("pipeline: at least one worker is needed");
  if (params.prefetch < 1) throw std::invalid_argument("pipeline: the prefetch depth must be at least 1");
  if (ring.slots() < params.prefetch + 1)
    throw std::invalid_argument("pipeline: a ring of " + std::to_string(ring.slots()) + " buffers cannot serve a prefetch depth of " +
                                std::to_string(params.prefetch) + " (needs at least prefetch + 1)");
  if (stage.shape().batch_bytes() > ring.slot_bytes())
    throw std::invalid_argument("pipeline: the batch does not fit in a ring slot");
  if (params.steps < 0 || params.warmup_steps < 0) throw std::invalid_argument("pipeline: negative step count");
  if (params.stall_timeout.count() <= 0) throw std::invalid_argument("pipeline: the stall timeout must be positive");
  Engine engine(params, stage, ring, consumer, hooks);
  return engine.run();
}

}  // namespace placebench::hostpipe
