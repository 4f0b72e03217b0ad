// placebench collective under mpirun (MPI backend): every collective's data is right, a corrupted
// buffer is caught, placements are gathered, bad input exits 2 on every rank with one message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "mpi_support.h"
#include "text_file.h"

using placebench::testing::count_lines;
using placebench::testing::placebench_binary;
using placebench::testing::run_command;
using placebench::testing::run_mpi;
using placebench::testing::stdout_json;

namespace {

void expect_all_right(const nlohmann::json& j, int ranks) {
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["backend"], "mpi");
  EXPECT_EQ(j["nranks"], ranks);
  EXPECT_EQ(j["wrong_total"], 0);
  ASSERT_EQ(j["ranks"].size(), static_cast<std::size_t>(ranks));
  for (const auto& r : j["ranks"]) EXPECT_TRUE(r["placement"].contains("status"));
  for (const auto& row : j["rows"]) {
    if (row.contains("unsupported")) continue;
    for (const char* f : {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "wrong", "time_p50",
                          "time_p95", "time_p99", "time_max"})
      EXPECT_TRUE(row.contains(f)) << f << " in " << row.dump();
    EXPECT_EQ(row["wrong"], 0) << row.dump();
    EXPECT_GT(row["time"].get<double>(), 0) << row.dump();
    EXPECT_LE(row["time_p50"].get<double>(), row["time_max"].get<double>());
    // time is the median block: between the fastest and slowest block; the per-iteration mean over ranks
    // never exceeds the slowest rank.
    EXPECT_LE(row["block_time_min"].get<double>(), row["time"].get<double>()) << row.dump();
    EXPECT_LE(row["time"].get<double>(), row["block_time_max"].get<double>()) << row.dump();
    EXPECT_GE(row["block_spread"].get<double>(), 1.0) << row.dump();
    EXPECT_LE(row["time_p50_rank_mean"].get<double>(), row["time_p50"].get<double>()) << row.dump();
  }
}

std::string fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("pb-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace

TEST(CollectiveMpi, EveryOperationAndTypeIsRightOnTwoRanks) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--ops", "all", "--types", "int8,int32,float32,float64", "--sizes",
                         "8,1000,64K", "--iters", "3", "--warmup", "1", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  expect_all_right(j, 2);
  EXPECT_EQ(j["rows"].size(), 7u * 4u * 2u * 3u);  // ops x types x modes x sizes
  // busbw factors (nccl-tests): allreduce 2(n-1)/n = 1, allgather (n-1)/n = 0.5, broadcast 1.
  for (const auto& row : j["rows"]) {
    double ratio = row["busbw"].get<double>() / row["algbw"].get<double>();
    if (row["op"] == "allreduce") EXPECT_NEAR(ratio, 1.0, 1e-9);
    if (row["op"] == "allgather" || row["op"] == "alltoall" || row["op"] == "reducescatter") EXPECT_NEAR(ratio, 0.5, 1e-9);
    if (row["op"] == "broadcast" || row["op"] == "reduce" || row["op"] == "sendrecv") EXPECT_NEAR(ratio, 1.0, 1e-9);
    bool rooted = row["op"] == "broadcast" || row["op"] == "reduce";
    EXPECT_EQ(row["root"], rooted ? 0 : -1);
  }
}

TEST(CollectiveMpi, FourRanksEveryOperationWithOtherOperatorsAndRoot) {
  for (const char* redop : {"prod", "max", "min"}) {
    auto run = run_mpi(4, {"collective", "--backend", "mpi", "--ops", "all", "--types", "int8,float32", "--redop", redop,
                           "--root", "3", "--sizes", "4,4K", "--iters", "2", "--warmup", "1", "--arm", "unpinned", "--json"});
    ASSERT_EQ(run.result.exit_code, 0) << redop << ": " << run.result.err;
    expect_all_right(stdout_json(run.result), 4);
  }
}

TEST(CollectiveMpi, HalfTypesMoveButDoNotReduceUnderMpi) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--ops", "allgather,allreduce", "--types", "float16,bfloat16",
                         "--sizes", "1K", "--iters", "2", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  expect_all_right(j, 2);
  for (const auto& row : j["rows"]) {
    if (row["op"] == "allreduce")
      EXPECT_NE(row.value("unsupported", ""), "") << row.dump();
    else
      EXPECT_FALSE(row.contains("unsupported")) << row.dump();
  }
}

TEST(CollectiveMpi, ACorruptedBufferIsCaughtAndFailsTheRun) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--ops", "allreduce", "--sizes", "4K", "--mode", "out-of-place",
                         "--iters", "2", "--json"},
                     60, {"PLACEBENCH_CORRUPT_RANK=1"});
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err;
  auto j = stdout_json(run.result);
  ASSERT_TRUE(j.is_object()) << run.result.out;
  EXPECT_EQ(j["wrong_total"], 1);
  EXPECT_EQ(j["rows"][0]["wrong"], 1);
}

TEST(CollectiveMpi, TableOnRankZeroOnlyWithDegenerateArm) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--arm", "remote", "--allow-degenerate", "--sizes", "8,1K",
                         "--iters", "2"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(count_lines(run.result.out, "Backend: mpi"), 1) << run.result.out;
  EXPECT_EQ(count_lines(run.result.out, "(degenerate)"), 2) << run.result.out;
  // nccl-tests' two summary lines, as it prints them.
  EXPECT_EQ(count_lines(run.result.out, "# Out of bounds values : 0 OK"), 1) << run.result.out;
  EXPECT_EQ(count_lines(run.result.out, "# Avg bus bandwidth    : "), 1) << run.result.out;
}

TEST(CollectiveMpi, BlocksAndTheirSpreadAreReportedPerRow) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--sizes", "8,64K", "--iters", "4", "--blocks", "3", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  expect_all_right(j, 2);
  EXPECT_EQ(j["config"]["blocks"], 3);
  for (const auto& row : j["rows"]) EXPECT_EQ(row["blocks"], 3) << row.dump();
  for (const char* f : {"host", "generated_at", "placebench_version"}) EXPECT_TRUE(j.contains(f)) << f;
}

TEST(CollectiveMpi, NcclTestsJsonIsWrittenBesideTheTableAndNeverOverwritten) {
  std::string dir = fresh_dir("nccl-tests-json");
  std::string path = dir + "/allreduce.json";
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--sizes", "8:512:x8", "--iters", "3", "--blocks", "3", "--json",
                         "--nccl-tests-json", path});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto native = stdout_json(run.result);
  auto nt = nlohmann::json::parse(placebench::testing::read_text_file(path));
  EXPECT_EQ(nt["version"], 3);
  ASSERT_EQ(nt["results"].size(), 3u);  // 8, 64, 512 B; both modes in each
  double sum = 0;
  for (const auto& r : nt["results"]) {
    EXPECT_EQ(r["root"], "    -1");
    for (const char* mode : {"out_of_place", "in_place"}) {
      for (const char* f : {"time", "alg_bw", "bus_bw", "nwrong"}) EXPECT_TRUE(r[mode].contains(f)) << r.dump();
      EXPECT_EQ(r[mode]["nwrong"], 0.0);
      sum += r[mode]["bus_bw"].get<double>();
    }
  }
  EXPECT_NEAR(nt["average_bus_bandwidth"]["bandwidth"].get<double>(), sum / 6, 1e-12);
  EXPECT_NEAR(nt["average_bus_bandwidth"]["bandwidth"].get<double>(), native["average_bus_bandwidth"].get<double>(), 1e-12);
  EXPECT_EQ(nt["out_of_bounds"]["okay"], "true");
  EXPECT_EQ(nt["config"]["devices"].size(), 2u);
  // The native rows and the nccl-tests rows carry the same figures.
  EXPECT_EQ(nt["results"][0]["out_of_place"]["time"], native["rows"][0]["time"]);

  std::string before = placebench::testing::read_text_file(path);
  auto again = run_mpi(2, {"collective", "--backend", "mpi", "--sizes", "8", "--nccl-tests-json", path}, 30);
  EXPECT_EQ(again.result.exit_code, 2);
  EXPECT_EQ(count_lines(again.result.err, path + ": already exists"), 1) << again.result.err;
  EXPECT_EQ(placebench::testing::read_text_file(path), before);

  auto two_ops = run_mpi(2, {"collective", "--ops", "allreduce,allgather", "--nccl-tests-json", dir + "/two.json"}, 30);
  EXPECT_EQ(two_ops.result.exit_code, 2);
  EXPECT_EQ(count_lines(two_ops.result.err, "give one --ops per file"), 1) << two_ops.result.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/two.json"));
  std::filesystem::remove_all(dir);
}

TEST(CollectiveMpi, BadInputExitsTwoOnEveryRankWithOneMessage) {
  auto bad_op = run_mpi(2, {"collective", "--ops", "allreduse"}, 30);
  EXPECT_EQ(bad_op.result.exit_code, 2);
  EXPECT_EQ(count_lines(bad_op.result.err, "--ops: unknown 'allreduse'"), 1) << bad_op.result.err;

  auto bad_root = run_mpi(2, {"collective", "--backend", "mpi", "--root", "5"}, 30);  // found after MPI starts
  EXPECT_EQ(bad_root.result.exit_code, 2);
  EXPECT_EQ(count_lines(bad_root.result.err, "--root 5"), 1) << bad_root.result.err;

  auto parse_error = run_mpi(2, {"collective", "--iters", "zero"}, 30);  // CLI11's own error
  EXPECT_EQ(parse_error.result.exit_code, 2);
  EXPECT_EQ(count_lines(parse_error.result.err, "--iters"), 1) << parse_error.result.err;

  // A GPU the node does not have is refused, not ignored (on a CPU-only node: "this node has no GPU").
  auto no_gpu = run_mpi(2, {"collective", "--backend", "mpi", "--gpu", "99"}, 30);
  EXPECT_EQ(no_gpu.result.exit_code, 2);
  EXPECT_EQ(count_lines(no_gpu.result.err, "placebench: --gpu 99: "), 1) << no_gpu.result.err;

  auto no_degenerate = run_mpi(2, {"collective", "--backend", "mpi", "--arm", "remote"}, 30);
  EXPECT_EQ(no_degenerate.result.exit_code, 2);
  EXPECT_EQ(count_lines(no_degenerate.result.err, "placebench:"), 1) << no_degenerate.result.err;
}

TEST(CollectiveMpi, OneRankIsRefusedUnlessAskedFor) {
  // mpirun forgotten: one rank measures nothing between ranks (busbw 0, algbw of a memcpy).
  auto alone = run_command({placebench_binary(), "collective", "--backend", "mpi", "--arm", "unpinned", "--sizes", "8"}, 60);
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_EQ(count_lines(alone.err, "placebench: collective: this job has 1 rank"), 1) << alone.err;
  EXPECT_NE(alone.err.find("mpirun -np N placebench collective ..."), std::string::npos) << alone.err;
  EXPECT_EQ(alone.out, "");
  auto one = run_mpi(1, {"collective", "--backend", "mpi", "--arm", "unpinned", "--sizes", "8"}, 60);
  EXPECT_EQ(one.result.exit_code, 2) << one.result.err;
  auto allowed = run_command({placebench_binary(), "collective", "--backend", "mpi", "--arm", "unpinned", "--sizes", "8",
                              "--iters", "2", "--allow-single-rank", "--json"},
                             60);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(stdout_json({0, allowed.out, "", false})["nranks"], 1) << allowed.out;
}
