// NCCL under mpirun on a GPU node (registered only with PLACEBENCH_ENABLE_DEVICE_TESTING): collectives
// with wrong = 0 on one rank per GPU, and a gang whose second rank is missing, where the survivor's
// non-blocking ncclCommInitRankConfig never completes and ncclCommAbort ends it at the deadline (two
// ranks need only one GPU, since the missing rank never touches it).
#include <gtest/gtest.h>

#include "mpi_support.h"

using placebench::testing::run_mpi;
using placebench::testing::stdout_json;

TEST(NcclMpiDevice, CollectivesAreRight) {
  auto run = run_mpi(1, {"collective", "--backend", "nccl", "--ops", "all", "--types", "all", "--sizes", "8:16M:x16",
                         "--iters", "5", "--allow-single-rank", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  EXPECT_EQ(j["backend"], "nccl");
  EXPECT_EQ(j["wrong_total"], 0);
}

TEST(NcclMpiDevice, MissingRankAbortsTheCommunicatorAtTheDeadline) {
  auto run = run_mpi(2, {"gang", "--backend", "nccl", "--gpu", "0", "--missing", "1", "--deadline", "3s", "--json"}, 60);
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err;
  EXPECT_LT(run.wall_s, 3.0 + 5.0);
  auto j = stdout_json(run.result);
  ASSERT_TRUE(j.is_object()) << run.result.out;
  EXPECT_EQ(j["outcome"], "failed_deadline");
  EXPECT_LT(j["cleanup_s"].get<double>(), 1.0);
}
