// Binding the calling thread (CPUs, memory policy) and undoing it. Each case runs on a thread of its
// own, so the test process's main thread keeps its placement.
#include "placebench/hostpipe/binding.h"

#include <gtest/gtest.h>
#include <numaif.h>

#include <string>
#include <thread>

#include "placebench/hostpipe/process_limits.h"

using namespace placebench::hostpipe;

namespace {

template <class F>
void on_own_thread(F&& f) {
  std::thread t(std::forward<F>(f));
  t.join();
}

int thread_policy_mode() {
  int mode = -1;
  return get_mempolicy(&mode, nullptr, 0, nullptr, 0) == 0 ? mode : -1;
}

}  // namespace

TEST(Binding, BindsAndResetsTheThreadMemoryPolicy) {
  on_own_thread([] {
    int node = read_allowed_sets().mems.front();
    ASSERT_EQ(bind_current_thread_memory({node}), "");
    EXPECT_EQ(thread_policy_mode(), MPOL_BIND);
    EXPECT_EQ(reset_current_thread_memory(), "");
    EXPECT_EQ(thread_policy_mode(), MPOL_DEFAULT);
    EXPECT_EQ(reset_current_thread_memory(), "") << "resetting a default policy is not an error";
  });
}

TEST(Binding, RefusesBadNodesAndCpusWithTheReason) {
  on_own_thread([] {
    EXPECT_EQ(bind_current_thread_memory({}), "no memory nodes given");
    EXPECT_EQ(bind_current_thread_memory({-1}), "node -1 is out of range");
    EXPECT_EQ(bind_current_thread({}), "no CPUs given");
    EXPECT_EQ(bind_current_thread({-1}), "CPU -1 is out of range");
  });
}

TEST(Binding, BindsTheThreadToItsAllowedCpus) {
  on_own_thread([] {
    AllowedSets allowed = read_allowed_sets();
    ASSERT_EQ(bind_current_thread({allowed.cpus.front()}), "");
    EXPECT_EQ(current_thread_affinity(), std::vector<int>{allowed.cpus.front()});
    ASSERT_EQ(bind_current_thread(allowed.cpus), "");
    EXPECT_EQ(current_thread_affinity(), allowed.cpus);
  });
}
