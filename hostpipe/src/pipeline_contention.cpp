// Contention threads (see pipeline/contention.h).
#include "placebench/hostpipe/pipeline/contention.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>

#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/numa_buffer.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/memory_kernels.h"

namespace placebench::hostpipe {

struct ContentionThreads::Slot {
  ContentionReport report;
  std::atomic<bool> ready{false};
};

namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
constexpr std::size_t kChunkElements = 1 << 16;  // ~0.8 MB of triad traffic between stop checks

void stream_loop(ContentionReport& r, std::atomic<bool>& ready, const std::atomic<bool>& stop) {
  std::size_t n = r.task.stream_elements();
  NumaBuffer buf(r.task.buffer_bytes(), r.task.mem_nodes);
  if (!buf.bind_error().empty()) r.problem = "stream buffer: " + buf.bind_error();
  auto* a = static_cast<float*>(buf.data());
  float *b = a + n, *c = b + n;
  for (std::size_t i = 0; i < n; ++i) b[i] = c[i] = 1.0f;  // first touch, from the bound thread
  ready = true;
  auto start = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  double elements = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    for (std::size_t off = 0; off < n && !stop.load(std::memory_order_relaxed); off += kChunkElements) {
      std::size_t len = std::min(kChunkElements, n - off);
      kernels::triad_cpu(a + off, b + off, c + off, 0.5f, len);
      elements += static_cast<double>(len);
    }
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.bytes_moved = elements * static_cast<double>(kernels::triad_bytes_moved(1));
  r.cpu_seconds = thread_cpu_seconds() - cpu0;
}

void spin_loop(ContentionReport& r, std::atomic<bool>& ready, const std::atomic<bool>& stop) {
  ready = true;
  auto start = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  std::uint32_t x = 1;
  while (!stop.load(std::memory_order_relaxed))
    for (int i = 0; i < 4096; ++i) x = kernels::compute_round(x);
  volatile std::uint32_t sink = x;
  (void)sink;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.cpu_seconds = thread_cpu_seconds() - cpu0;
}

}  // namespace

ContentionThreads::ContentionThreads(const std::vector<ContentionTask>& tasks) {
  for (const auto& task : tasks) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->report.task = task;
  }
  for (auto& slot : slots_) {
    Slot* s = slot.get();
    threads_.emplace_back([s, this] {
      pthread_setname_np(pthread_self(), "pb-contention");  // placed on purpose: ThreadWatch leaves "pb-" threads alone
      if (!s->report.task.cpus.empty()) {
        std::string err = bind_current_thread(s->report.task.cpus);
        if (!err.empty()) s->report.problem = "bind: " + err;
      }
      try {
        if (s->report.task.kind == ContentionTask::Kind::kStream)
          stream_loop(s->report, s->ready, stop_);
        else
          spin_loop(s->report, s->ready, stop_);
      } catch (const std::exception& e) {
        s->report.problem = e.what();
        s->ready = true;
      }
    });
  }
  auto deadline = Clock::now() + std::chrono::seconds(30);
  for (auto& slot : slots_) {
    while (!slot->ready.load()) {
      if (Clock::now() > deadline) {
        stop();
        throw std::runtime_error("contention: a background thread was not ready within 30 s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

ContentionThreads::~ContentionThreads() { stop(); }

std::vector<ContentionReport> ContentionThreads::stop() {
  stop_ = true;
  std::vector<ContentionReport> out;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  if (threads_.empty()) return out;
  for (auto& s : slots_) out.push_back(s->report);
  threads_.clear();
  slots_.clear();
  return out;
}

}  // namespace placebench::hostpipe
