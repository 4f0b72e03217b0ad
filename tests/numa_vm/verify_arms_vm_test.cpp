// `placebench verify` for every arm inside a 2-node QEMU guest (node K has CPU K): pages and thread
// affinity must be exactly where each arm says, and a placement the cgroup forbids must fail.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "vm_run.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

VmRun verify_in_vm(const std::vector<std::string>& verify_args, const std::vector<std::string>& vm_args = {}) {
  std::vector<std::string> command = {"verify", "--json", "--bytes", "16M"};
  command.insert(command.end(), verify_args.begin(), verify_args.end());
  return placebench_in_vm(command, vm_args);
}

constexpr std::size_t kPages = 16u << 20 >> 12;  // 16 MiB of 4 KiB pages

void expect_arm(const std::string& arm, const std::string& cpus, const std::string& node) {
  VmRun run = verify_in_vm({"--arm", arm});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  ASSERT_FALSE(run.record.is_discarded()) << run.result.out;
  EXPECT_EQ(run.record["status"], "verified") << run.record.dump();
  EXPECT_EQ(run.record["degenerate"], false);
  EXPECT_EQ(run.record["requested"]["cpus"], cpus);
  EXPECT_EQ(run.record["effective"]["cpus"], cpus);
  EXPECT_EQ(run.record["effective"]["mem_policy"], "bind");
  EXPECT_EQ(pages(run.record), (std::map<std::string, std::size_t>{{node, kPages}})) << run.record.dump();
}

}  // namespace

TEST(VerifyArmsInVm, LocalIsCpu0AndNode0) { expect_arm("local", "0", "0"); }
TEST(VerifyArmsInVm, RemoteIsCpu1AndNode1) { expect_arm("remote", "1", "1"); }
TEST(VerifyArmsInVm, CpuLocalMemRemoteSplitsAsNamed) { expect_arm("cpu-local-mem-remote", "0", "1"); }
TEST(VerifyArmsInVm, CpuRemoteMemLocalSplitsAsNamed) { expect_arm("cpu-remote-mem-local", "1", "0"); }

TEST(VerifyArmsInVm, DeviceOnNode1MirrorsTheArms) {
  VmRun run = verify_in_vm({"--arm", "local", "--device-numa", "1"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.record["effective"]["cpus"], "1");
  EXPECT_EQ(pages(run.record), (std::map<std::string, std::size_t>{{"1", kPages}}));
}

TEST(VerifyArmsInVm, UnpinnedIsRecordedAsObserved) {
  VmRun run = verify_in_vm({"--arm", "unpinned"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.record["requested"]["cpus"], "");
  EXPECT_EQ(run.record["effective"]["cpus"], "0-1");
  EXPECT_EQ(run.record["effective"]["mem_policy"], "default");
}

TEST(VerifyArmsInVm, ForbiddenNodeFailsVerification) {
  // The cgroup allows CPU 0 and node 0 only; naming node 1 as the remote side must not pass.
  VmRun run = verify_in_vm({"--arm", "remote", "--remote-node", "1"}, {"--cpuset-cpus", "0", "--cpuset-mems", "0"});
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err << run.result.out;
  ASSERT_FALSE(run.record.is_discarded()) << run.result.out;
  EXPECT_EQ(run.record["status"], "failed") << run.record.dump();
  EXPECT_FALSE(run.record["problems"].empty());
  EXPECT_EQ(pages(run.record).count("1"), 0u);
}
