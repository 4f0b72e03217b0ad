// `placebench pipeline` inside the 2-node QEMU guest (node K has CPU K): the worker, the training loop
// and the staging ring each land where a split arm says, proven by the records' affinity and pages.
#include <gtest/gtest.h>

#include "vm_run.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

VmRun pipeline_in_vm(const std::string& arm) {
  return placebench_in_vm({"pipeline", "--backend", "host", "--arm", arm, "--steps", "5", "--warmup", "1",
                           "--batch-samples", "4", "--image", "32x32", "--step-compute", "200us", "--json"});
}

void expect_verified_on(const json& rec, const std::string& cpus, const std::string& node) {
  EXPECT_EQ(rec["status"], "verified") << rec.dump();
  EXPECT_EQ(rec["effective"]["mem_policy"], "bind") << rec.dump();
  for (const auto& [n, count] : pages(rec)) EXPECT_EQ(n, node) << rec.dump();
  if (!cpus.empty()) EXPECT_EQ(rec["effective"]["cpus"], cpus) << rec.dump();
}

}  // namespace

TEST(PipelineArmsInVm, CpuRemoteMemLocalPlacesWorkerLoopAndRingAsNamed) {
  VmRun run = pipeline_in_vm("cpu-remote-mem-local");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  ASSERT_FALSE(run.record.is_discarded()) << run.result.out;
  EXPECT_EQ(run.record["status"], "ok") << run.record["error"];
  EXPECT_EQ(run.record["steps"].size(), 5u);
  const json& placement = run.record["placement"];
  ASSERT_EQ(placement["workers"].size(), 1u);
  expect_verified_on(placement["workers"][0], "1", "0");  // CPUs on node 1, memory on the device's node 0
  expect_verified_on(placement["loop"], "1", "0");        // node 1 has one CPU: the loop shares it
  expect_verified_on(placement["ring"], "", "0");         // memory only
  EXPECT_FALSE(pages(placement["ring"]).empty());
}
