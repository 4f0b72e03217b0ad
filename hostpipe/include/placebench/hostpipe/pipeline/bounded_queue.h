// The pipeline's hand-off: a bounded FIFO queue whose every push and pop takes a deadline, so no
// thread of the pipeline can wait forever, and which can be cancelled to wake and release everyone at
// once on shutdown. Mutex + two condition variables; a notify is issued only when someone waits, so an
// uncontended hand-off costs two lock round trips and no system call.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

namespace placebench::hostpipe {

enum class QueueStatus { kOk, kTimeout, kCancelled };

template <class T>
class BoundedQueue {
 public:
  using Clock = std::chrono::steady_clock;

  explicit BoundedQueue(std::size_t capacity) : items_(capacity) {
    if (capacity == 0) throw std::invalid_argument("BoundedQueue: capacity must be positive");
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // Appends `value`, waiting for room until `deadline`. kCancelled once cancel() was called.
  QueueStatus push(T value, Clock::time_point deadline) {
    spin_while([&] { return size_.load(std::memory_order_relaxed) == items_.size(); });
    std::unique_lock lock(mutex_);
    if (count_ == items_.size() && !cancelled_) {
      ++push_waiters_;
      bool room = not_full_.wait_until(lock, deadline, [&] { return count_ < items_.size() || cancelled_; });
      --push_waiters_;
      if (!room) return QueueStatus::kTimeout;
    }
    if (cancelled_) return QueueStatus::kCancelled;
    items_[(head_ + count_) % items_.size()] = std::move(value);
    ++count_;
    size_.store(count_, std::memory_order_relaxed);
    bool wake = pop_waiters_ > 0;
    lock.unlock();
    if (wake) not_empty_.notify_one();
    return QueueStatus::kOk;
  }

  // Takes the oldest item into `out`, waiting for one until `deadline`. kCancelled once cancel() was
  // called (items still queued are abandoned: cancel means stop now, not drain).
  QueueStatus pop(T& out, Clock::time_point deadline) {
    spin_while([&] { return size_.load(std::memory_order_relaxed) == 0; });
    std::unique_lock lock(mutex_);
    if (count_ == 0 && !cancelled_) {
      ++pop_waiters_;
      bool item = not_empty_.wait_until(lock, deadline, [&] { return count_ > 0 || cancelled_; });
      --pop_waiters_;
      if (!item) return QueueStatus::kTimeout;
    }
    if (cancelled_) return QueueStatus::kCancelled;
    out = std::move(*items_[head_]);
    items_[head_].reset();
    head_ = (head_ + 1) % items_.size();
    --count_;
    size_.store(count_, std::memory_order_relaxed);
    bool wake = push_waiters_ > 0;
    lock.unlock();
    if (wake) not_full_.notify_one();
    return QueueStatus::kOk;
  }

  // Wakes every waiter; all later pushes and pops return kCancelled.
  void cancel() {
    {
      std::lock_guard lock(mutex_);
      cancelled_ = true;
    }
    not_empty_.notify_all();
    not_full_.notify_all();
  }

  // Items queued now (a lock-free snapshot, for occupancy sampling).
  std::size_t size() const { return size_.load(std::memory_order_relaxed); }
  std::size_t capacity() const { return items_.size(); }

 private:
  // A waiter spins this long before it sleeps on the condition variable. Sleeping costs a futex wake
  // and a reschedule (tens of us on a VM), which dominated the hand-off with a 1 us spin (21 us per
  // batch on the 2-core VM); 20 us of spinning, small beside a millisecond batch, keeps a streaming
  // hand-off at about 1 us (docs/performance.md).
  static constexpr std::chrono::nanoseconds kSpin{20000};

  // Busy-waits while `blocked()` holds, for at most kSpin (the clock is read every 32 checks).
  template <class Pred>
  void spin_while(Pred blocked) const {
    if (!blocked()) return;
    auto until = Clock::now() + kSpin;
    for (unsigned i = 1; blocked(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (i % 32 == 0 && Clock::now() >= until) return;
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::vector<std::optional<T>> items_;
  std::size_t head_ = 0, count_ = 0;
  int push_waiters_ = 0, pop_waiters_ = 0;
  bool cancelled_ = false;
  std::atomic<std::size_t> size_{0};
};

}  // namespace placebench::hostpipe
