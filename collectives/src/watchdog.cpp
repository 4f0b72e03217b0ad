// The wait watchdog (see watchdog.h). The thread wakes every poll period (a tenth of the stall timeout,
// 10 to 250 ms): progress since the last look restarts the clock; an armed watch without progress
// for its allowance expires.
#include "placebench/collectives/watchdog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace placebench::collectives {

double call_allowance_s(double bytes) { return 1e-3 + bytes / 100e6; }

Watchdog::Watchdog(std::string who, double stall_timeout_s, Expiry on_expiry)
    : who_(std::move(who)), stall_s_(stall_timeout_s), on_expiry_(std::move(on_expiry)), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Watchdog::Watch Watchdog::watch(std::string what, double per_call_s) {
  if (armed_.load(std::memory_order_relaxed)) return Watch(this, false);
  std::lock_guard<std::mutex> lock(mutex_);
  what_ = std::move(what);
  per_call_s_ = per_call_s;
  expected_calls_.store(1, std::memory_order_relaxed);
  seen_progress_ = progress_.load(std::memory_order_relaxed);
  since_ = std::chrono::steady_clock::now();
  armed_.store(true, std::memory_order_relaxed);
  return Watch(this, true);
}

Watchdog::Watch::~Watch() {
  if (dog_ && owns_) dog_->disarm();
  else progress();  // a nested wait that ended is progress of the outer one
}

void Watchdog::disarm() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_.store(false, std::memory_order_relaxed);
}

void Watchdog::loop() {
  auto period = std::chrono::duration<double>(std::clamp(stall_s_ / 10, 0.01, 0.25));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, period);
    if (stop_ || !armed_.load(std::memory_order_relaxed)) continue;
    auto now = std::chrono::steady_clock::now();
    std::uint64_t progress = progress_.load(std::memory_order_relaxed);
    if (progress != seen_progress_) {
      seen_progress_ = progress;
      since_ = now;
      continue;
    }
    auto calls = static_cast<double>(std::max<std::size_t>(1, expected_calls_.load(std::memory_order_relaxed)));
    double allowance = stall_s_ + calls * per_call_s_;
    if (std::chrono::duration<double>(now - since_).count() < allowance) continue;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g", allowance);
    std::string message = who_ + ": " + what_ + " did not finish within " + seconds + " s; a peer is stalled or frozen";
    armed_.store(false, std::memory_order_relaxed);
    lock.unlock();
    on_expiry_(message);
    lock.lock();
  }
}

}  // namespace placebench::collectives
