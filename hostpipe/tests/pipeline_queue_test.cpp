// The pipeline's bounded queue and staging ring: FIFO order, deadlines, cancellation wakes waiters.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "placebench/hostpipe/pipeline/bounded_queue.h"
#include "placebench/hostpipe/pipeline/staging_ring.h"

using namespace placebench::hostpipe;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST(PipelineQueue, FifoAndBounded) {
  BoundedQueue<int> q(2);
  EXPECT_EQ(q.push(1, Clock::now()), QueueStatus::kOk);
  EXPECT_EQ(q.push(2, Clock::now()), QueueStatus::kOk);
  EXPECT_EQ(q.size(), 2u);
  auto t0 = Clock::now();
  EXPECT_EQ(q.push(3, Clock::now() + 20ms), QueueStatus::kTimeout);  // full: waits out its deadline
  EXPECT_GE(Clock::now() - t0, 19ms);
  int v = 0;
  EXPECT_EQ(q.pop(v, Clock::now()), QueueStatus::kOk);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(q.pop(v, Clock::now()), QueueStatus::kOk);
  EXPECT_EQ(v, 2);
  EXPECT_EQ(q.pop(v, Clock::now() + 10ms), QueueStatus::kTimeout);
}

TEST(PipelineQueue, CancelWakesBlockedWaiters) {
  BoundedQueue<int> q(1);
  QueueStatus got = QueueStatus::kOk;
  auto t0 = Clock::now();
  std::thread waiter([&] {
    int v;
    got = q.pop(v, Clock::now() + 10s);
  });
  std::this_thread::sleep_for(20ms);
  q.cancel();
  waiter.join();
  EXPECT_EQ(got, QueueStatus::kCancelled);
  EXPECT_LT(Clock::now() - t0, 2s);
  EXPECT_EQ(q.push(1, Clock::now()), QueueStatus::kCancelled);
}

TEST(PipelineQueue, HandsOffAcrossThreadsInOrder) {
  BoundedQueue<int> q(4);
  constexpr int kItems = 20000;
  std::thread producer([&] {
    for (int i = 0; i < kItems; ++i) ASSERT_EQ(q.push(i, Clock::now() + 5s), QueueStatus::kOk);
  });
  for (int i = 0; i < kItems; ++i) {
    int v = -1;
    ASSERT_EQ(q.pop(v, Clock::now() + 5s), QueueStatus::kOk);
    ASSERT_EQ(v, i);
  }
  producer.join();
}

TEST(PipelineRing, SlotsArePageAlignedAndReturn) {
  StagingRing ring(3, 5000, {});
  EXPECT_EQ(ring.slots(), 3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ring.slot(1)) % page_size(), 0u);
  EXPECT_GE(ring.slot(1) - ring.slot(0), 5000);
  int a, b, c, d;
  ASSERT_EQ(ring.acquire(a, Clock::now()), QueueStatus::kOk);
  ASSERT_EQ(ring.acquire(b, Clock::now()), QueueStatus::kOk);
  ASSERT_EQ(ring.acquire(c, Clock::now()), QueueStatus::kOk);
  EXPECT_EQ(ring.acquire(d, Clock::now() + 5ms), QueueStatus::kTimeout);
  ring.release(b);
  ASSERT_EQ(ring.acquire(d, Clock::now()), QueueStatus::kOk);
  EXPECT_EQ(d, b);
  EXPECT_THROW(ring.slot(3), std::out_of_range);
}
