// Reading what a process was given from /proc (fixtures in tests/fixtures/audit/proc and the live
// process), the cpuset's memory nodes from cgroup v1 and v2 trees, and catching a late thread.
#include "placebench/hostpipe/process_placement.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "placebench/hostpipe/process_limits.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"
#include "placebench/hostpipe/thread_watch.h"

using namespace placebench::hostpipe;

namespace {

const std::string kAudit = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit";

TEST(ProcessPlacement, ReadsEveryThreadOfAnotherProcess) {
  ProcessPlacement p = read_process_placement(4242, kAudit + "/proc");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.allowed_cpus, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(p.allowed_mems, (std::vector<int>{0, 1}));
  ASSERT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(p.threads[1].tid, 4250);
  EXPECT_EQ(p.threads[1].name, "pt_data_worker");
  EXPECT_EQ(p.threads[1].cpus, (std::vector<int>{4, 5, 6, 7}));
}

TEST(ProcessPlacement, AMissingProcessIsAnErrorNotAThrow) {
  ProcessPlacement p = read_process_placement(999999, kAudit + "/proc");
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].find("999999/status"), std::string::npos) << p.errors[0];
  EXPECT_TRUE(p.threads.empty());
}

TEST(ProcessPlacement, NamesThatAreNotUtf8AreMadeValid) {
  EXPECT_EQ(valid_utf8("ok"), "ok");
  EXPECT_EQ(valid_utf8("w\xE4rker\xFF"), "w?rker?");
}

TEST(ProcessPlacement, ReadsThisProcessLive) {
  ProcessPlacement p = read_process_placement(0);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  const int self = static_cast<int>(::syscall(SYS_gettid));
  auto it = std::find_if(p.threads.begin(), p.threads.end(), [&](const ThreadAffinity& t) { return t.tid == self; });
  ASSERT_NE(it, p.threads.end());
  EXPECT_EQ(it->cpus, current_thread_affinity());
}

TEST(ProcessPlacement, NumaMapsGivesPoliciesAndPagesPerNode) {
  NumaMaps m = parse_numa_maps(
      "7f00 default anon=3 dirty=3 N0=1 N1=2 kernelpagesize_kB=4\n"
      "7f10 bind:1 anon=5 N1=5 kernelpagesize_kB=4\n"
      "7f20 interleave:0-1 file=/lib/x.so N0=2 N1=2\n"
      "7f30 default file=/lib/libc.so anon=1 dirty=1 N0=3 N1=1\n"
      "garbage\n");
  EXPECT_EQ(m.policies, (std::map<std::string, std::size_t>{{"bind:1", 1}, {"default", 2}, {"interleave:0-1", 1}}));
  // Neither file mapping counts, not even the one with a private copy (its N0=3 are page cache).
  EXPECT_EQ(m.pages, (std::map<int, std::size_t>{{0, 1}, {1, 7}}));
  EXPECT_EQ(read_numa_maps(4242, kAudit + "/proc").pages, (std::map<int, std::size_t>{{1, 2048}}));
  EXPECT_NE(read_numa_maps(999999, kAudit + "/proc").error, "");
}

// A copy of fixture pid 4242 in a scratch proc root, with one of its files replaced by a FIFO (which
// git cannot hold): reading it must refuse at once, not wait for a writer that never comes.
std::string proc_with_fifo(const std::string& name, const std::string& file) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("pb-proc-fifo-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  fs::copy(kAudit + "/proc/4242", root / "4242", fs::copy_options::recursive);
  fs::remove(root / "4242" / file);
  EXPECT_EQ(::mkfifo((root / "4242" / file).c_str(), 0600), 0);
  return root.string();
}

TEST(ProcessPlacement, AFifoForStatusOrNumaMapsIsRefusedNotWaitedOn) {
  const auto start = std::chrono::steady_clock::now();
  ProcessPlacement p = read_process_placement(4242, proc_with_fifo("status", "status"));
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].find("not a regular file (a FIFO)"), std::string::npos) << p.errors[0];
  NumaMaps m = read_numa_maps(4242, proc_with_fifo("maps", "numa_maps"));
  EXPECT_NE(m.error.find("not a regular file (a FIFO)"), std::string::npos) << m.error;
  EXPECT_TRUE(m.pages.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(read_proc_text(proc_with_fifo("comm", "task/4242/comm") + "/4242/task/4242/comm", kMaxProcTextBytes));
}

TEST(ProcessPlacement, KernelThreadsAndZombiesAreRecognisedAndHaveNoMemoryMap) {
  ProcessPlacement kthread = read_process_placement(77, kAudit + "/proc");
  EXPECT_TRUE(kthread.kernel_thread);
  EXPECT_EQ(kthread.state, "I");
  ProcessPlacement zombie = read_process_placement(4249, kAudit + "/proc");
  EXPECT_FALSE(zombie.kernel_thread);
  EXPECT_EQ(zombie.state, "Z");
  EXPECT_NE(read_numa_maps(4249, kAudit + "/proc").error.find("is empty"), std::string::npos);
  ProcessPlacement trainer = read_process_placement(4246, kAudit + "/proc");
  EXPECT_FALSE(trainer.kernel_thread);
  EXPECT_EQ(trainer.state, "S");
  EXPECT_EQ(read_numa_maps(4246, kAudit + "/proc").error, "");
}

TEST(ProcessPlacement, CpusetMemoryNodesFromCgroupV2AndV1) {
  auto v2 = sysmetrics::read_cgroup_limits(kAudit + "/cgroup-v2/proc", kAudit + "/cgroup-v2/sys");
  EXPECT_EQ(v2.version, 2);
  EXPECT_EQ(v2.cpuset_cpus_effective, "1-2");
  EXPECT_EQ(v2.cpuset_mems_effective, "0");
  EXPECT_NE(v2.cpuset_path.find("cri-containerd-0123abcd.scope"), std::string::npos) << v2.cpuset_path;
  auto v1 = sysmetrics::read_cgroup_limits(kAudit + "/cgroup-v1/proc", kAudit + "/cgroup-v1/sys");
  EXPECT_EQ(v1.version, 1);
  EXPECT_EQ(v1.cpuset_cpus_effective, "4-7");
  EXPECT_EQ(v1.cpuset_mems_effective, "1");
}

// A thread started after the watch, on a CPU outside the watched set, is reported; the threads that
// existed before (this one) are not, and neither is a thread that stays inside.
TEST(ThreadWatchTest, ReportsALateThreadOutsideTheCpus) {
  std::vector<int> allowed = current_thread_affinity();
  if (allowed.size() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  const int inside = allowed[0], outside = allowed[1];
  ThreadWatchOptions o;
  o.cpus = {inside};
  o.interval = std::chrono::milliseconds(10);
  ThreadWatch watch(o);
  std::atomic<int> late_tid{0};
  std::atomic<bool> done{false};
  auto run_on = [&](int cpu, bool report) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<unsigned>(cpu), &set);
    sched_setaffinity(0, sizeof set, &set);
    if (report) late_tid = static_cast<int>(::syscall(SYS_gettid));
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  std::thread late(run_on, outside, true), good(run_on, inside, false);
  for (int i = 0; i < 200 && late_tid == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // several samples (10 ms apart)
  ThreadWatchResult r = watch.stop();
  done = true;
  late.join();
  good.join();
  ASSERT_EQ(r.outside.size(), 1u) << r.samples << " samples";
  EXPECT_EQ(r.outside[0].tid, late_tid.load());
  EXPECT_EQ(r.outside[0].cpus, std::vector<int>{outside});
  EXPECT_GE(r.samples, 2u);
}

TEST(ThreadWatchTest, WatchesNothingWithoutCpus) {
  ThreadWatch watch(ThreadWatchOptions{});
  EXPECT_EQ(watch.stop().samples, 0u);
}

}  // namespace
