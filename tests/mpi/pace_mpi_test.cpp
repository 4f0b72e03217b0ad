// Who sets the pace, under mpirun (4 ranks, oversubscribed): a rank slowed on purpose by far more than
// this machine's scheduling noise is named, by `collective` in its dose rounds and by `gang` per step,
// and the dose is recorded as measured. (The false-alarm and 10%-dose figures are measured by runs, not
// by tests: docs/performance.md.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "mpi_support.h"

using placebench::testing::run_mpi;
using placebench::testing::stdout_json;

TEST(PaceMpi, CollectiveNamesAHeavilySlowedRankAndMeasuresTheDose) {
  auto run = run_mpi(4, {"collective", "--backend", "mpi", "--ops", "allreduce", "--sizes", "8", "--mode", "out-of-place",
                         "--iters", "5", "--blocks", "2", "--warmup", "1", "--arm", "unpinned", "--slow-ranks", "2",
                         "--slow-doses", "0,20ms", "--slow-rounds", "3", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  ASSERT_EQ(j["rows"].size(), 1u);
  ASSERT_EQ(j["clock_rtt_us"].size(), 4u);
  EXPECT_EQ(j["config"]["slowdown"]["ranks"], nlohmann::json::array({2}));
  const auto& pace = j["rows"][0]["pace"];
  for (const char* part : {"blocks", "calls"}) {
    EXPECT_EQ(pace[part]["ranks"].size(), 4u) << pace.dump();
    EXPECT_EQ(pace["lanes"][part].size(), pace[part]["blocks"].get<std::size_t>()) << pace.dump();
  }
  const auto& doses = pace["doses"];
  ASSERT_EQ(doses.size(), 2u) << pace.dump();
  EXPECT_EQ(doses[0]["dose"], "0");
  EXPECT_EQ(doses[1]["dose"], "20ms");
  EXPECT_EQ(doses[1]["pace"]["setter"], 2) << doses[1].dump();
  EXPECT_EQ(doses[1]["rounds"], 3);
  EXPECT_NEAR(doses[1]["set_us"].get<double>(), 20000, 1e-6);
  EXPECT_GE(doses[1]["achieved_us"].get<double>(), 20000) << doses[1].dump();  // a spin ends at its time, never sooner
  EXPECT_GT(doses[1]["step_delta_us"]["estimate"].get<double>(), 10000) << doses[1].dump();
  // Every timed single call starts at its common instant (start_window.h), not at a barrier's exit: the
  // earliest starts of consecutive calls are a period apart (their median gap at least half of it; calls
  // started at a barrier follow each other a step apart, a small share of the period at 8 B), and a
  // dose's period covers the step and the largest dose.
  EXPECT_EQ(pace["call_start"]["rule"], "common instant") << pace.dump();
  double period = pace["call_start"]["period_us"].get<double>();
  const auto& lanes = pace["lanes"]["calls"];
  std::vector<double> gaps;
  auto earliest = [&](std::size_t k) {
    double e = 1e300;
    for (const auto& rank : lanes[k]) e = std::min(e, rank[0].get<double>());
    return e;
  };
  for (std::size_t k = 1; k < lanes.size(); ++k) gaps.push_back(earliest(k) - earliest(k - 1));
  ASSERT_FALSE(gaps.empty());
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
  EXPECT_GE(gaps[gaps.size() / 2], 0.5 * period) << lanes.dump();
  EXPECT_GE(doses[1]["window_period_us"].get<double>(), 20000 + 500) << doses[1].dump();
}

TEST(PaceMpi, GangNamesAHeavilySlowedRankPerStep) {
  auto run = run_mpi(4, {"gang", "--backend", "mpi", "--arm", "unpinned", "--steps", "10", "--step-bytes", "1K",
                         "--slow-ranks", "1", "--slow-step", "30ms", "--deadline", "20s", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  EXPECT_EQ(j["config"]["slow_ranks"], nlohmann::json::array({1}));
  const auto& steps = j["pace"]["steps"];
  EXPECT_EQ(steps["setter"], 1) << steps.dump();
  EXPECT_EQ(steps["blocks"], 10);  // enough steps for the trial test (pace.h): last in 10 of 10 is p = 4^-10
  EXPECT_EQ(steps["ranks"][1]["late_blocks"], 10) << steps.dump();  // last even moved 2% of the step earlier
  EXPECT_GE(steps["ranks"][1]["median_compute_us"].get<double>(), 30000) << steps.dump();
  EXPECT_EQ(j["pace"]["lanes"].size(), 10u);
}

TEST(PaceMpi, SlowingARankThatDoesNotExistIsBadInput) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--sizes", "8", "--slow-ranks", "5", "--json"});
  EXPECT_EQ(run.result.exit_code, 2);
  EXPECT_NE(run.result.err.find("--slow-ranks: rank 5 does not exist"), std::string::npos) << run.result.err;
}

TEST(PaceMpi, CallsStartAtABarrierWhenAsked) {
  auto run = run_mpi(2, {"collective", "--backend", "mpi", "--ops", "allreduce", "--sizes", "8", "--mode", "out-of-place",
                         "--iters", "5", "--blocks", "2", "--arm", "unpinned", "--call-start", "barrier", "--json"});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  auto j = stdout_json(run.result);
  EXPECT_EQ(j["config"]["call_start"], "barrier");
  EXPECT_EQ(j["rows"][0]["pace"]["call_start"], nlohmann::json({{"rule", "barrier"}})) << j["rows"][0]["pace"].dump();
  EXPECT_NE(j["labels"]["time_p50"].get<std::string>().find("barrier"), std::string::npos);
  auto bad = run_mpi(2, {"collective", "--backend", "mpi", "--sizes", "8", "--call-start", "soon"});
  EXPECT_EQ(bad.result.exit_code, 2) << bad.result.err;
  EXPECT_NE(bad.result.err.find("--call-start"), std::string::npos) << bad.result.err;
}

// --slow-cap where this node cannot cap (cgroup v1, as CI's): exit 2 with what is missing, never an
// uncapped run; where it can (cgroup v2, writable), the capped rank's record says what was written.
TEST(PaceMpi, GangCpuCapIsAppliedOrRefusedWithTheReason) {
  auto run = run_mpi(2, {"gang", "--backend", "mpi", "--arm", "unpinned", "--steps", "3", "--step-bytes", "8",
                         "--step-work", "20ms", "--slow-ranks", "1", "--slow-cap", "50%", "--json"});
  if (!std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers")) {  // cgroup v1 (this VM, CI): the reason
    EXPECT_EQ(run.result.exit_code, 2) << run.result.err;
    EXPECT_NE(run.result.err.find("--slow-cap: a CPU share cap needs cgroup v2"), std::string::npos) << run.result.err;
  } else if (run.result.exit_code == 0) {
    auto j = stdout_json(run.result);
    EXPECT_EQ(j["config"]["slow_cap"], 0.5);
    EXPECT_TRUE(j["ranks"][1].contains("cpu_cap")) << j["ranks"][1].dump();
    EXPECT_FALSE(j["ranks"][0].contains("cpu_cap")) << j["ranks"][0].dump();
  } else {  // cgroup v2 where this job's cgroup cannot cap: one of cpu_cap.h's reasons
    EXPECT_EQ(run.result.exit_code, 2) << run.result.err;
    EXPECT_NE(run.result.err.find("--slow-cap: "), std::string::npos) << run.result.err;
  }
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--slow-ranks", "1", "--slow-cap", "50", "--step-work", "5ms"},
           {"--slow-ranks", "1", "--slow-cap", "0.5%", "--step-work", "5ms"},
           {"--slow-ranks", "1", "--slow-cap", "50%"},
           {"--slow-ranks", "1", "--slow-cap", "50%", "--slow-step", "1ms", "--step-work", "5ms"},
           {"--slow-ranks", "1", "--slow-cap", "50%", "--step-work", "2ms"},  // under 4 of the cap's periods
           {"--slow-ranks", "1", "--slow-cap", "50%", "--step-work", "20ms", "--missing", "0"}}) {
    std::vector<std::string> args{"gang", "--backend", "mpi", "--arm", "unpinned"};
    args.insert(args.end(), bad.begin(), bad.end());
    auto r = run_mpi(2, args);
    EXPECT_EQ(r.result.exit_code, 2) << r.result.err;
    EXPECT_NE(r.result.err.find("--slow-"), std::string::npos) << r.result.err;
  }
}
