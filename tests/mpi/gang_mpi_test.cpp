// placebench gang under mpirun (MPI backend): a late rank strands the others' GPUs for its delay, a
// missing rank ends every survivor within the bound with results written, a retry recovers a rank that
// missed the first window.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "mpi_support.h"

using placebench::testing::count_lines;
using placebench::testing::placebench_binary;
using placebench::testing::run_command;
using placebench::testing::run_mpi;
using placebench::testing::stdout_json;

namespace {

std::string temp_path(const std::string& name) {
  return std::string(PLACEBENCH_BINARY_DIR) + "/tests/mpi/" + name;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, false);
}

}  // namespace

TEST(GangMpi, LateRankStrandsTheOthersForItsDelay) {
  // 4 ranks, rank 3 late by 1.5 s, 2 GPUs each: 3 ranks x 1.5 s x 2 = 9 GPU-seconds.
  auto run = run_mpi(4, {"gang", "--backend", "mpi", "--arm", "unpinned", "--late", "3", "--late-delay", "1.5s", "--deadline",
                         "10s", "--gpus-per-rank", "2", "--steps", "3", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  ASSERT_TRUE(j.is_object()) << run.result.out;
  EXPECT_EQ(j["outcome"], "complete");
  for (const char* key : {"schema_version", "host", "generated_at", "placebench_version"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_NEAR(j["stranded_gpu_s"].get<double>(), 9.0, 0.9) << j.dump(2);
  double start = j["schedule_start_s"];
  EXPECT_NEAR(j["group_ready_s"].get<double>() - start, 1.5, 0.15);
  EXPECT_GE(j["time_to_first_step_s"].get<double>(), j["group_ready_s"].get<double>());
  EXPECT_EQ(j["retries"], 0);
  ASSERT_EQ(j["ranks"].size(), 4u);
  for (const auto& r : j["ranks"]) {
    ASSERT_EQ(r["attempts"].size(), 1u);
    const auto& a = r["attempts"][0];
    EXPECT_LE(a["ready_s"].get<double>(), a["joined_s"].get<double>());
    EXPECT_LE(a["joined_s"].get<double>(), a["first_step_s"].get<double>());
    EXPECT_LE(a["first_step_s"].get<double>(), a["released_s"].get<double>());
    EXPECT_LT(std::abs(r["clock_offset_s"].get<double>()), 0.05);  // one host: one monotonic clock
  }
}

TEST(GangMpi, MissingRankEndsEverySurvivorWithinTheBoundWithResultsWritten) {
  std::string out = temp_path("gang-missing.json");
  std::remove(out.c_str());
  // Bound: deadline x (K + 1) + backoffs + 5 s = 2 x 1 + 0 + 5 = 7 s.
  auto run = run_mpi(3, {"gang", "--backend", "mpi", "--arm", "unpinned", "--missing", "2", "--deadline", "2s", "--out", out,
                         "--json"},
                     30);
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err;
  EXPECT_LT(run.wall_s, 7.0);
  auto j = stdout_json(run.result);
  ASSERT_TRUE(j.is_object()) << run.result.out;
  EXPECT_EQ(j["outcome"], "failed_deadline");
  EXPECT_TRUE(j["group_ready_s"].is_null());
  EXPECT_EQ(j["ranks"][2]["reported"], false);
  EXPECT_GT(j["stranded_gpu_s"].get<double>(), 2 * 2.0 * 0.9);  // two survivors held their GPU ~2 s
  EXPECT_LT(j["cleanup_s"].get<double>(), 1.0);
  auto written = read_json(out);
  ASSERT_TRUE(written.is_object()) << "--out not written";
  EXPECT_EQ(written["outcome"], "failed_deadline");
}

TEST(GangMpi, RetryRecoversALateRankAndMissingRankWithRetriesStaysBounded) {
  // Windows: [0, 1], backoff 0.5 s, [1.5, 2.5]: rank 2, ready at 1.2 s, joins the second attempt.
  auto retry = run_mpi(3, {"gang", "--backend", "mpi", "--arm", "unpinned", "--late", "2", "--late-delay", "1.2s", "--deadline",
                           "1s", "--retries", "2", "--backoff", "0.5s", "--steps", "2", "--json"},
                       30);
  ASSERT_EQ(retry.result.exit_code, 0) << retry.result.err;
  auto j = stdout_json(retry.result);
  ASSERT_TRUE(j.is_object()) << retry.result.out;
  EXPECT_EQ(j["outcome"], "complete");
  EXPECT_EQ(j["completed_attempt"], 1);
  EXPECT_EQ(j["retries"], 1);
  EXPECT_EQ(j["ranks"][0]["attempts"].size(), 2u);
  EXPECT_EQ(j["ranks"][2]["attempts"].size(), 1u);

  // Missing rank with one retry: bound 1 x 2 + 0.5 + 5 = 7.5 s.
  auto failed = run_mpi(2, {"gang", "--backend", "mpi", "--arm", "unpinned", "--missing", "1", "--deadline", "1s", "--retries",
                            "1", "--backoff", "0.5s", "--json"},
                        30);
  EXPECT_EQ(failed.result.exit_code, 1) << failed.result.err;
  EXPECT_LT(failed.wall_s, 7.5);
  auto f = stdout_json(failed.result);
  ASSERT_TRUE(f.is_object()) << failed.result.out;
  EXPECT_EQ(f["outcome"], "failed_deadline");
  EXPECT_EQ(f["retries"], 1);
  EXPECT_EQ(f["ranks"][0]["attempts"].size(), 2u);
}

TEST(GangMpi, BadInputExitsTwo) {
  auto run = run_mpi(2, {"gang", "--late", "7", "--late-delay", "1s"}, 30);
  EXPECT_EQ(run.result.exit_code, 2);
  EXPECT_NE(run.result.err.find("--late: rank 7 does not exist"), std::string::npos) << run.result.err;
  auto no_delay = run_mpi(2, {"gang", "--late", "1"}, 30);
  EXPECT_EQ(no_delay.result.exit_code, 2);
  EXPECT_NE(no_delay.result.err.find("--late needs --late-delay"), std::string::npos) << no_delay.result.err;
  // --out is checked before the gang runs, not after.
  auto bad_out = run_mpi(2, {"gang", "--arm", "unpinned", "--out", "/nonexistent-dir/gang.json"}, 30);
  EXPECT_EQ(bad_out.result.exit_code, 2) << bad_out.result.err;
  EXPECT_NE(bad_out.result.err.find("--out /nonexistent-dir/gang.json: /nonexistent-dir is not a writable directory"),
            std::string::npos)
      << bad_out.result.err;
}

TEST(GangMpi, RankLateBeyondTheScheduleIsWaitedForOnlyUntilTheScheduleEnds) {
  // Rank 1 would be ready after 1000 h; the gang's one window closes after 1 s: it fails within the bound
  // (deadline + grace + report margin + drain, a few seconds), and the late rank made no attempt.
  auto run = run_mpi(2, {"gang", "--backend", "mpi", "--arm", "unpinned", "--late", "1", "--late-delay", "1000h", "--deadline",
                         "1s", "--json"},
                     60);
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_LT(run.wall_s, 20.0);
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err;
  auto j = stdout_json(run.result);
  ASSERT_TRUE(j.is_object()) << run.result.out;
  EXPECT_EQ(j["outcome"], "failed_deadline");
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["ranks"][1]["attempts"].size(), 0u) << j["ranks"][1].dump();
}

TEST(GangMpi, OneRankIsRefusedUnlessAskedFor) {
  auto alone = run_command({placebench_binary(), "gang", "--backend", "mpi", "--arm", "unpinned", "--deadline", "2s"}, 60);
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_EQ(count_lines(alone.err, "placebench: gang: this job has 1 rank"), 1) << alone.err;
  EXPECT_NE(alone.err.find("mpirun -np N placebench gang ..."), std::string::npos) << alone.err;
  EXPECT_EQ(alone.out.find("complete"), std::string::npos) << alone.out;
  auto allowed = run_command({placebench_binary(), "gang", "--backend", "mpi", "--arm", "unpinned", "--deadline", "2s",
                              "--steps", "1", "--allow-single-rank", "--json"},
                             60);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
}

TEST(GangMpi, RetriesAreBoundedAndTheMostStillRun) {
  // 100000 retries once ended in MPI_ERR_INTERN (one communicator per attempt): now bad input, exit 2.
  auto many = run_mpi(2, {"gang", "--backend", "mpi", "--arm", "unpinned", "--retries", "100000"}, 30);
  EXPECT_EQ(many.result.exit_code, 2) << many.result.err;
  EXPECT_EQ(count_lines(many.result.err, "placebench: --retries 100000: at most 1000"), 1) << many.result.err;
  // The most allowed: 1001 communicators made, the first attempt completes, all freed before MPI_Finalize.
  auto most = run_mpi(2, {"gang", "--backend", "mpi", "--arm", "unpinned", "--retries", "1000", "--deadline", "20s", "--steps",
                          "1", "--json"},
                      120);
  ASSERT_EQ(most.result.exit_code, 0) << most.result.err;
  EXPECT_EQ(stdout_json(most.result)["outcome"], "complete");
}
