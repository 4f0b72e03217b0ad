// The CPU share cap (cpu_cap.h) on a fake cgroup v2 tree in a temporary directory: what it writes where,
// and a clear error, with nothing left behind, for each thing a node can lack (cgroup v1, the cpu
// controller, a subtree_control it cannot write). The real kernel is exercised in the QEMU guest
// (tests/numa_vm/cpu_cap_vm_test.sh: the kernel throttles a capped rank).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "placebench/hostpipe/cpu_cap.h"

using placebench::hostpipe::cpu_max_text;
using placebench::hostpipe::CpuCap;
using placebench::hostpipe::CpuCapError;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// /proc/self/cgroup and a cgroup v2 mount with this process in `cgroup` ("/" or "/a/b").
struct FakeTree {
  fs::path root = fs::temp_directory_path() / ("pb-cpucap-" + std::to_string(::getpid()) + "-" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::path proc = root / "proc", sys = root / "cgroup";
  fs::path dir;
  explicit FakeTree(const std::string& cgroup, const std::string& controllers = "cpuset cpu io memory pids",
                    const std::string& subtree = "") {
    fs::remove_all(root);
    put(proc / "self/cgroup", "0::" + cgroup + "\n");
    put(sys / "cgroup.controllers", controllers + "\n");
    dir = cgroup == "/" ? sys : sys / cgroup.substr(1);
    put(dir / "cgroup.controllers", controllers + "\n");
    put(dir / "cgroup.subtree_control", subtree);
    put(dir / "cgroup.procs", "1\n" + std::to_string(::getpid()) + "\n");  // this process is in it
  }
  // The kernel makes a child's files when it is created; the fake one has them made beforehand.
  fs::path child() {
    fs::path c = dir / ("placebench-cap-" + std::to_string(::getpid()));
    put(c / "cpu.max", "max 100000\n");
    put(c / "cgroup.procs", "");
    return c;
  }
  ~FakeTree() { fs::remove_all(root); }
};

}  // namespace

TEST(CpuCap, WritesTheQuotaAndMovesThisProcessThenMovesItBack) {
  FakeTree t("/job/rank");
  fs::path child = t.child();
  put(child / "cpu.stat", "usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\nnr_periods 12\nnr_throttled 9\nthrottled_usec 686151\n");
  {
    auto cap = CpuCap::apply(0.25, 10000, t.proc.string(), t.sys.string());
    EXPECT_EQ(slurp(t.dir / "cgroup.subtree_control"), "+cpu");  // enabled for its children
    EXPECT_EQ(slurp(child / "cpu.max"), "2500 10000");
    EXPECT_EQ(slurp(child / "cgroup.procs"), std::to_string(::getpid()));
    EXPECT_EQ(cap->cgroup_dir(), child.string());
    EXPECT_EQ(cap->cpu_max(), "2500 10000");
    auto st = cap->stats();
    EXPECT_EQ(st.periods, 12u);
    EXPECT_EQ(st.throttled, 9u);
    EXPECT_EQ(st.throttled_us, 686151u);
    EXPECT_EQ(st.usage_us, 5000u);
  }
  EXPECT_EQ(slurp(t.dir / "cgroup.procs"), std::to_string(::getpid()));  // moved back when lifted
}

TEST(CpuCap, ACgroupThatDoesNotHoldThisProcessIsRefusedNotGuessed) {
  FakeTree t("/job/rank");
  put(t.dir / "cgroup.procs", "1\n");  // a namespace or another mount: the path is not where this process is
  try {
    CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
    FAIL() << "capped in a cgroup that does not hold this process";
  } catch (const CpuCapError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot find this process's own cgroup"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(t.dir / "cgroup.subtree_control"), "");  // nothing written
  put(t.proc / "self/cgroup", "0::/not/mounted/here\n");
  EXPECT_THROW(CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string()), CpuCapError);
}

TEST(CpuCap, ChildrenThatKilledRunsLeftAreRemovedAndALiveOnesKept) {
  FakeTree t("/");
  t.child();
  fs::create_directory(t.dir / "placebench-cap-999999999");                     // no such process
  fs::create_directory(t.dir / ("placebench-cap-" + std::to_string(::getppid())));  // alive: another rank's
  fs::create_directory(t.dir / "placebench-cap-notapid");
  auto cap = CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
  EXPECT_FALSE(fs::exists(t.dir / "placebench-cap-999999999"));
  EXPECT_TRUE(fs::exists(t.dir / ("placebench-cap-" + std::to_string(::getppid()))));
  EXPECT_TRUE(fs::exists(t.dir / "placebench-cap-notapid"));
}

TEST(CpuCap, LeavesAnEnabledCpuControllerAsItIs) {
  FakeTree t("/", "cpu memory", "cpu memory");
  t.child();
  auto cap = CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
  EXPECT_EQ(slurp(t.dir / "cgroup.subtree_control"), "cpu memory");
  EXPECT_EQ(cap->cpu_max(), "50000 100000");
}

TEST(CpuCap, CgroupV1IsAClearErrorNamingWhatToDo) {
  FakeTree t("/");
  put(t.proc / "self/cgroup", "12:cpu,cpuacct:/user.slice\n11:memory:/user.slice\n");
  try {
    CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
    FAIL() << "applied on cgroup v1";
  } catch (const CpuCapError& e) {
    EXPECT_NE(std::string(e.what()).find("needs cgroup v2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--slow-step"), std::string::npos) << e.what();
  }
}

TEST(CpuCap, AMissingCpuControllerIsAClearErrorAndNothingIsCreated) {
  FakeTree t("/job", "cpuset memory");
  try {
    CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
    FAIL() << "applied without the cpu controller";
  } catch (const CpuCapError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu controller is not available"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(t.dir / ("placebench-cap-" + std::to_string(::getpid()))));
  EXPECT_EQ(slurp(t.dir / "cgroup.subtree_control"), "");
}

TEST(CpuCap, ASubtreeControlItCannotWriteIsAClearError) {
  FakeTree t("/job");
  fs::remove(t.dir / "cgroup.subtree_control");
  fs::create_directory(t.dir / "cgroup.subtree_control");  // a write fails here even as root (EISDIR)
  try {
    CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
    FAIL() << "applied without enabling +cpu";
  } catch (const CpuCapError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot enable the cpu controller"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(t.dir / ("placebench-cap-" + std::to_string(::getpid()))));
}

TEST(CpuCap, AChildItCannotMoveIntoIsRemovedAndReported) {
  FakeTree t("/job", "cpu", "cpu");
  fs::path child = t.dir / ("placebench-cap-" + std::to_string(::getpid()));
  fs::create_directories(child);  // no cpu.max in it: the write fails
  try {
    CpuCap::apply(0.5, 100000, t.proc.string(), t.sys.string());
    FAIL() << "applied without cpu.max";
  } catch (const CpuCapError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot cap this process"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(child));
}

TEST(CpuCap, ShareOutsideOnePercentToAllIsRefused) {
  FakeTree t("/");
  EXPECT_THROW(CpuCap::apply(0, 100000, t.proc.string(), t.sys.string()), CpuCapError);
  EXPECT_THROW(CpuCap::apply(1.5, 100000, t.proc.string(), t.sys.string()), CpuCapError);
}

TEST(CpuCap, QuotaKeepsTheKernelsFloorAndBounds) {
  EXPECT_EQ(cpu_max_text(0.25, 100000), "25000 100000");
  EXPECT_EQ(cpu_max_text(0.25, 2000), "1000 4000");      // 500 us is under the 1 ms least quota: a longer period
  EXPECT_EQ(cpu_max_text(0.01, 1000), "1000 100000");    // 1% needs a 100 ms period
  EXPECT_EQ(cpu_max_text(1.0, 100), "1000 1000");        // the least period
  EXPECT_EQ(cpu_max_text(0.5, 5000000), "500000 1000000");  // the largest period
}
