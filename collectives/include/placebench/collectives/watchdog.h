// A deadline on every MPI wait that a frozen peer cannot defeat. A frozen rank (kill -STOP) leaves its
// peers blocked inside a collective forever, and MPI has no timeout: so one thread per process watches
// the wait in progress. A watch is armed around a block of work; each finished call counts as
// progress; when no progress is made for the allowance (the stall timeout plus what the pending calls
// need by their bytes), the expiry action runs with "rank R: <what> did not finish within Ns; a peer
// is stalled or frozen" (MpiSession's prints it and aborts the job, as for a dead peer).
// Arming and disarming take a lock; progress is one relaxed atomic add, so timed loops can count calls.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace placebench::collectives {

// The stall timeout: how long an MPI wait may make no progress before the job is aborted.
struct StallTimeout {
  static constexpr double kDefaultS = 60;
  static constexpr double kMaxS = 3600;
};

// Seconds one call may need beyond the stall timeout: a millisecond plus its bytes at 100 MB/s (far
// below any interconnect, so only a stalled peer runs past it).
double call_allowance_s(double bytes);

class Watchdog {
 public:
  // Runs on the watchdog's thread; the job is expected to end (if it returns, the watch is disarmed).
  using Expiry = std::function<void(const std::string& message)>;

  Watchdog(std::string who, double stall_timeout_s, Expiry on_expiry);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  double stall_timeout_s() const { return stall_s_; }

  class Watch {
   public:
    Watch(Watch&& other) noexcept : dog_(other.dog_), owns_(other.owns_) { other.dog_ = nullptr; }
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    Watch& operator=(Watch&&) = delete;
    ~Watch();  // disarms; a nested watch counts one call of the outer one
    // One call finished: the clock of the allowance restarts.
    void progress() noexcept {
      if (dog_) dog_->progress_.fetch_add(1, std::memory_order_relaxed);
    }
    // The next wait covers `calls` queued calls (NCCL enqueues, then waits once): allowance scales.
    void expect_calls(std::size_t calls) noexcept {
      if (dog_) dog_->expected_calls_.store(calls, std::memory_order_relaxed);
    }

   private:
    friend class Watchdog;
    Watch(Watchdog* dog, bool owns) : dog_(dog), owns_(owns) {}
    Watchdog* dog_;
    bool owns_;
  };

  // Arms a watch on `what` (e.g. "collective allreduce of 8 B"), each call allowed the stall timeout
  // plus per_call_s. Inside an armed watch, a nested one only counts progress for the outer one.
  // Call from one thread (MPI's main thread).
  Watch watch(std::string what, double per_call_s = 0);

 private:
  void loop();
  void disarm();

  std::string who_;
  double stall_s_;
  Expiry on_expiry_;
  std::atomic<std::uint64_t> progress_{0};
  std::atomic<std::size_t> expected_calls_{1};
  std::atomic<bool> armed_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string what_;
  double per_call_s_ = 0;
  std::uint64_t seen_progress_ = 0;
  std::chrono::steady_clock::time_point since_;
  std::thread thread_;
};

}  // namespace placebench::collectives
