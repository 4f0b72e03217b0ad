// The wait watchdog: a watch without progress expires with its message, progress and nested waits keep
// it alive, a disarmed watch never fires. Deadlines here only prove "it fired" or "it did not hang".
#include "placebench/collectives/watchdog.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace placebench::collectives {
namespace {

// Records expiries (a real expiry aborts the job; here it returns and the watch is disarmed).
struct Expiries {
  std::mutex mutex;
  std::vector<std::string> messages;
  Watchdog::Expiry action() {
    return [this](const std::string& m) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(m);
    };
  }
  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex);
    return messages.size();
  }
  // Waits up to 10 s for a first expiry.
  std::string first() {
    for (int i = 0; i < 1000 && count() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard<std::mutex> lock(mutex);
    return messages.empty() ? "" : messages.front();
  }
};

void busy_with_progress(Watchdog::Watch& w, std::chrono::milliseconds for_how_long) {
  auto end = std::chrono::steady_clock::now() + for_how_long;
  while (std::chrono::steady_clock::now() < end) {
    w.progress();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(Watchdog, AWatchWithoutProgressExpiresWithItsMessage) {
  Expiries seen;
  Watchdog dog("rank 3", 0.1, seen.action());
  auto w = dog.watch("collective allreduce 8 B (float, out-of-place)", 0.5);
  EXPECT_EQ(seen.first(),
            "rank 3: collective allreduce 8 B (float, out-of-place) did not finish within 0.6 s; a peer is stalled or frozen");
  EXPECT_EQ(seen.count(), 1u);  // once: the expired watch is disarmed
}

TEST(Watchdog, ProgressKeepsAWatchAlive) {
  Expiries seen;
  Watchdog dog("rank 0", 0.5, seen.action());
  {
    auto w = dog.watch("MPI_Barrier");
    busy_with_progress(w, std::chrono::milliseconds(1500));  // three times the stall timeout
  }
  EXPECT_EQ(seen.count(), 0u);
}

TEST(Watchdog, ANestedWatchCountsAsProgressOfTheOuterOneAndIsNoWatchOfItsOwn) {
  Expiries seen;
  Watchdog dog("rank 0", 0.5, seen.action());
  {
    auto outer = dog.watch("collective allgather 64 B (int8, in-place)");
    for (int i = 0; i < 150; ++i) {  // 1.5 s of nested waits: three times the stall timeout
      auto inner = dog.watch("MPI_Barrier");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  EXPECT_EQ(seen.count(), 0u);
  auto outer = dog.watch("collective allgather 64 B (int8, in-place)");
  { auto inner = dog.watch("MPI_Barrier"); }
  std::string m = seen.first();  // the outer watch expires, under its own name
  EXPECT_NE(m.find("collective allgather 64 B (int8, in-place) did not finish within 0.5 s"), std::string::npos) << m;
}

TEST(Watchdog, QueuedCallsScaleTheAllowance) {
  Expiries seen;
  Watchdog dog("rank 1", 0.1, seen.action());
  auto w = dog.watch("collective broadcast 1024 B (float, out-of-place)", 0.05);
  w.expect_calls(10);
  EXPECT_NE(seen.first().find("did not finish within 0.6 s"), std::string::npos);
}

TEST(Watchdog, ADisarmedWatchNeverFires) {
  Expiries seen;
  Watchdog dog("rank 0", 0.05, seen.action());
  { auto w = dog.watch("MPI_Bcast from rank 0"); }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(seen.count(), 0u);
  EXPECT_DOUBLE_EQ(dog.stall_timeout_s(), 0.05);
}

TEST(Watchdog, CallAllowanceIsAMillisecondPlusTheBytesAt100MBps) {
  EXPECT_DOUBLE_EQ(call_allowance_s(0), 1e-3);
  EXPECT_DOUBLE_EQ(call_allowance_s(100e6), 1.001);
}

}  // namespace
}  // namespace placebench::collectives
