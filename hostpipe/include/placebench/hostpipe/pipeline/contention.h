// Controlled contention: background threads that stream memory on a chosen NUMA node (the STREAM triad
// over a buffer bound there) or spin on chosen CPUs, started before a measurement and stopped after, so
// the same placement can be measured isolated and under load.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace placebench::hostpipe {

struct ContentionTask {
  enum class Kind { kStream, kSpin };
  Kind kind = Kind::kStream;
  std::vector<int> cpus;         // bind the thread here (empty: not bound; required for spin)
  std::vector<int> mem_nodes;    // stream: where its buffer lives
  std::size_t bytes = std::size_t{64} << 20;  // stream: buffer size (three arrays of bytes/3)

  static constexpr std::size_t kMinStreamElements = std::size_t{1} << 16;  // per array
  // Elements per array of a stream task's buffer, and the bytes it allocates (spin: 0), so that a caller
  // can check memory before starting anything.
  std::size_t stream_elements() const {
    std::size_t n = bytes / (3 * sizeof(float));
    return n > kMinStreamElements ? n : kMinStreamElements;
  }
  std::size_t buffer_bytes() const { return kind == Kind::kStream ? 3 * stream_elements() * sizeof(float) : 0; }
};

struct ContentionReport {
  ContentionTask task;
  double seconds = 0;            // how long it ran
  double bytes_moved = 0;        // stream: STREAM triad count, 3 x 4 bytes per element
  double cpu_seconds = 0;        // the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) while it ran
  double gbps() const { return seconds > 0 ? bytes_moved / seconds / 1e9 : 0; }
  std::string problem;           // a bind that failed, in words ("" when none)
};

class ContentionThreads {
 public:
  ContentionThreads() = default;
  // Starts one thread per task and returns once every thread has bound itself and placed its buffer
  // (so the load is on before the caller measures). Throws std::runtime_error when a thread is not
  // ready within 30 s (after stopping the others).
  explicit ContentionThreads(const std::vector<ContentionTask>& tasks);
  ~ContentionThreads();
  ContentionThreads(const ContentionThreads&) = delete;
  ContentionThreads& operator=(const ContentionThreads&) = delete;

  // Stops and joins every thread; returns what each did. Idempotent (later calls return {}).
  std::vector<ContentionReport> stop();

 private:
  struct Slot;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

}  // namespace placebench::hostpipe
