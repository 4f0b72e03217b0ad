// The NCCL backend on a real GPU (registered only with PLACEBENCH_ENABLE_DEVICE_TESTING): one rank (a
// singleton MPI process) runs every collective and type through NCCL with wrong = 0, and a one-rank
// gang completes through the non-blocking communicator init.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/clock_sync.h"
#include "placebench/collectives/gang.h"
#include "placebench/collectives/nccl_library.h"
#include "placebench/kernels/device_runtime.h"

using namespace placebench::collectives;

namespace {

bool device_ready() {
  bool required = std::getenv("PLACEBENCH_REQUIRE_DEVICE") != nullptr;
  auto rt = placebench::kernels::query_device_runtime();
  if (rt.usable() && nccl_availability().loaded) return true;
  if (required) ADD_FAILURE() << "a GPU and NCCL are required: " << rt.status << "; " << nccl_availability().detail;
  return false;
}

MpiSession& session() {
  static MpiSession s;  // finalized at exit
  return s;
}

}  // namespace

TEST(NcclDevice, EveryCollectiveAndTypeIsRightOnOneRank) {
  if (!device_ready()) GTEST_SKIP() << "no GPU or no NCCL";
  CollectiveBenchConfig cfg;
  cfg.backend = Backend::kNccl;
  cfg.gpu = 0;
  cfg.ops = all_collectives();
  cfg.types = all_types();
  cfg.sizes = {8, 4096, 1 << 20};
  cfg.iters = 3;
  cfg.warmup_iters = 1;
  std::vector<char> host(bench_host_bytes(cfg, session().size()));
  CollectiveBenchResult r = run_collective_bench(session(), cfg, host.data(), host.size());
  EXPECT_EQ(r.wrong_total, 0);
  for (const auto& row : r.rows) {
    if (row.unsupported.empty()) {
      EXPECT_EQ(row.wrong, 0) << collective_name(row.op) << " " << type_name(row.type);
    }
  }
}

TEST(NcclDevice, OneRankGangCompletes) {
  if (!device_ready()) GTEST_SKIP() << "no GPU or no NCCL";
  GangConfig cfg;
  cfg.backend = Backend::kNccl;
  cfg.gpu = 0;
  cfg.deadline_s = 20;
  cfg.steps = 3;
  Gang gang(session(), cfg, steady_now_s());
  GangResult r = gang.run();
  EXPECT_EQ(r.outcome, "complete");
  EXPECT_TRUE(gang.drain());
}
