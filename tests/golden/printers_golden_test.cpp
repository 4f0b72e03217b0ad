// Golden outputs of the printers whose commands cannot run deterministically here (staging and pipeline
// measure this machine, collective and gang need mpirun, --version names this machine's libraries):
// each result is built with fixed numbers, rendered as table and JSON, and compared exactly with
// tests/golden/printers/. No printer has a from-JSON reader, so the structs are filled directly, with
// values like those of the committed fixtures (tests/fixtures/results/*.json) and every branch of the
// printer that a real run can reach (degenerate, unsupported, unchecked, missing rank, failed run).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "golden.h"
#include "placebench/harness/build_info.h"
#include "placebench/harness/collectives_driver/collective_nccl_tests.h"
#include "placebench/harness/collectives_driver/collective_report.h"
#include "placebench/harness/collectives_driver/gang_report.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/harness/workloads/staging.h"

using namespace placebench::harness;
using namespace placebench::collectives;
using placebench::golden::matches_golden;

namespace {

std::string json_text(const nlohmann::json& j) { return j.dump(2) + "\n"; }

// A verified placement of `arm`: CPUs and memory as requested, every page on the requested node.
PlacementRecord placement(const std::string& arm, int device_numa, std::vector<int> cpus, std::vector<int> mems,
                          std::size_t pages = 256) {
  PlacementRecord r;
  r.arm = arm;
  r.device_numa = device_numa;
  r.requested_cpus = cpus;
  r.requested_mems = mems;
  r.effective_cpus = cpus;
  r.mem_policy = mems.empty() ? "default" : "bind";
  r.mem_policy_nodes = mems;
  r.pages = {{mems.empty() ? device_numa : mems.front(), pages}};
  r.requested_pages_pct = 100.0;
  r.status = "verified";
  return r;
}

PlacementRecord unpinned(int device_numa, std::vector<int> effective_cpus) {
  PlacementRecord r = placement("unpinned", device_numa, {}, {});
  r.effective_cpus = std::move(effective_cpus);
  r.pages = {{0, 192}, {1, 64}};
  return r;
}

nlohmann::json rank_json(int rank, int local_rank, const std::string& host, DeviceSelector device, int numa_node,
                         PlacementRecord record) {
  RankIdentity who{rank, local_rank, 2, host};
  RankPlacement p;
  p.device.device = device;
  p.device.numa_node = numa_node;
  p.device.worker = local_rank;
  p.device.workers = 2;
  p.placed.record = std::move(record);
  return rank_to_json(who, p);
}

// ---- staging ---------------------------------------------------------------------------------------

StagingRow staging_row(const std::string& arm, std::uint64_t bytes, std::vector<double> gbps, double p10, double median,
                       double p90, PlacementRecord where) {
  StagingRow r;
  r.arm = arm;
  r.direction = "h2d";
  r.memory = "pinned";
  r.bytes = bytes;
  r.copies_per_sample = bytes >= (1u << 20) ? 4 : 64;
  r.gbps = std::move(gbps);
  r.gbps_p10 = p10;
  r.gbps_median = median;
  r.gbps_p90 = p90;
  r.placement = std::move(where);
  r.placement.pinned = true;
  return r;
}

StagingResult staging_result() {
  StagingResult s;
  s.backend = "host";
  s.backend_reason = "auto: no usable CUDA device";
  s.rows.push_back(staging_row("local", 65536, {9.5, 10.25, 10.5, 11.0}, 9.725, 10.375, 10.85, placement("local", 0, {2}, {0})));
  s.rows.push_back(staging_row("local", 1 << 20, {12.0, 12.5, 12.75, 13.0}, 12.15, 12.625, 12.925, placement("local", 0, {2}, {0})));
  s.rows.push_back(staging_row("remote", 1 << 20, {7.5, 8.0, 8.25, 8.5}, 7.65, 8.125, 8.425, placement("remote", 0, {10}, {1})));
  PlacementRecord cross = placement("cross-socket-memory", 0, {2}, {1});
  cross.status = "partial";
  cross.pages = {{0, 32}, {1, 224}};
  cross.requested_pages_pct = 87.5;
  cross.problems = {"32 of 256 pages are not on the requested node 1"};
  s.rows.push_back(staging_row("cross-socket-memory", 1 << 20, {8.5, 9.0}, 8.55, 8.75, 8.95, cross));
  PlacementRecord free_run = unpinned(0, {0, 1, 2, 3, 8, 9, 10, 11});
  s.rows.push_back(staging_row("unpinned", 1 << 20, {11.0, 11.5, 12.0}, 11.1, 11.5, 11.9, free_run));
  return s;
}

TEST(GoldenPrinter, StagingTableAndJson) {
  StagingResult s = staging_result();
  EXPECT_TRUE(matches_golden(render_staging_table(s), "printers/staging.txt"));
  EXPECT_TRUE(matches_golden(json_text(staging_to_json(s)), "printers/staging.json"));
}

TEST(GoldenPrinter, StagingDegenerateRow) {
  StagingResult s;
  s.backend = "cuda";
  s.backend_reason = "requested";
  PlacementRecord same_node = placement("remote", 0, {4}, {0});
  same_node.degenerate = true;
  s.rows.push_back(staging_row("remote", 1ull << 30, {24.5, 24.75, 25.0}, 24.55, 24.75, 24.95, same_node));
  s.rows.back().direction = "bidir";
  s.rows.back().memory = "registered";
  EXPECT_TRUE(matches_golden(render_staging_table(s), "printers/staging-degenerate.txt"));
}

// ---- pipeline --------------------------------------------------------------------------------------

PipelineResult pipeline_result() {
  PipelineResult r;
  r.backend = "host";
  r.backend_reason = "auto: no usable CUDA device";
  r.arm = "local";
  r.decode = "synthetic";
  r.workers = 2;
  r.prefetch = 2;
  r.ring = 5;
  r.batch_samples = 32;
  r.image_width = 64;
  r.image_height = 64;
  r.batch_bytes = 32ull * 64 * 64 * 3 * 4;
  r.dataset_bytes = 64ull * 64 * 64 * 3 * 4;
  r.warmup = 5;
  r.steps_requested = 4;
  r.step_compute_s = 2e-3;
  r.cpu_work_ns_per_kib = 250;
  r.stall_timeout_s = 10.02;
  r.steps = {{150000, 400000, 2000000, 2560000, 2, 0, 5},
             {0, 410000, 2000000, 2420000, 1, 1, 6},
             {1250000, 395000, 2010000, 3665000, 0, 0, 7},
             {50000, 405000, 2000000, 2465000, 1, 1, 8}};
  PipelineSummary& m = r.summary;
  m.steps = 4;
  m.throughput_batches_s = 360.0;
  m.throughput_samples_s = 11520.0;
  m.throughput_bytes_s = 566231040.0;
  m.input_bound_pct = 25.5;
  m.input_bound_class = "highly";
  m.wait_pct = 13.75;
  m.step_ns_median = 2512500;
  m.step_ns_p99 = 3631850;
  m.step_ns_mean = 2777500;
  m.wait_ns_median = 100000;
  m.wait_ns_p99 = 1216000;
  m.h2d_ns_median = 402500;
  m.compute_ns_median = 2000000;
  m.wait_ns_mean = 362500;
  m.h2d_ns_mean = 402500;
  m.compute_ns_mean = 2002500;
  m.queue_depth_mean = 1.0;
  m.cpu_util = 0.625;
  m.worker_cpu_ns = 13887500;
  m.peak_rss_bytes = 48ll << 20;
  m.pinned_bytes = 0;
  m.minor_faults = 1536;
  m.major_faults = 0;
  m.stages = {800.0, 2484.5, 499.4, "compute", 0.75};
  r.worker_placement = {placement("local", 0, {2}, {0}), placement("local", 0, {3}, {0})};
  r.ring_placement = placement("local", 0, {}, {0});
  r.ring_placement.requested_pages_pct = 100.0;
  r.loop_placement = placement("local", 0, {4, 5, 6, 7}, {0});
  placebench::hostpipe::ContentionReport stream;
  stream.task.kind = placebench::hostpipe::ContentionTask::Kind::kStream;
  stream.task.cpus = {12};
  stream.task.mem_nodes = {0};
  stream.task.bytes = 64ull << 20;
  stream.seconds = 0.5;
  stream.bytes_moved = 4.5e9;
  placebench::hostpipe::ContentionReport spin;
  spin.task.kind = placebench::hostpipe::ContentionTask::Kind::kSpin;
  spin.task.cpus = {13, 14};
  spin.seconds = 0.5;
  spin.problem = "CPU 14 is not allowed: bound to 13 only";
  r.contention = {stream, spin};
  return r;
}

TEST(GoldenPrinter, PipelineTableAndJson) {
  PipelineResult r = pipeline_result();
  EXPECT_TRUE(matches_golden(render_pipeline_table(r), "printers/pipeline.txt"));
  EXPECT_TRUE(matches_golden(json_text(pipeline_to_json(r)), "printers/pipeline.json"));
}

TEST(GoldenPrinter, PipelineFailedRun) {
  PipelineResult r = pipeline_result();
  r.status = "failed";
  r.error = "worker 1 stalled: no batch for 10.020 s (--stall-timeout)";
  r.steps.resize(1);
  r.summary.steps = 1;
  r.image_width = r.image_height = 0;  // batch given in bytes (--batch-bytes), not as images
  r.worker_placement[1] = unpinned(0, {0, 1, 2, 3});
  r.worker_placement[1].degenerate = true;
  r.contention.clear();
  EXPECT_TRUE(matches_golden(render_pipeline_table(r), "printers/pipeline-failed.txt"));
  EXPECT_TRUE(matches_golden(json_text(pipeline_to_json(r)), "printers/pipeline-failed.json"));
}

// ---- collective ------------------------------------------------------------------------------------

CollectiveRow collective_row(Collective op, bool in_place, std::uint64_t size, double time_us, double algbw, double busbw,
                             std::int64_t wrong) {
  CollectiveRow r;
  r.op = op;
  r.type = DataType::kFloat32;
  r.redop = ReduceOp::kSum;
  r.root = op == Collective::kBroadcast || op == Collective::kReduce ? 0 : -1;
  r.in_place = in_place;
  r.size = size;
  r.count = size / 4;
  r.time_us = time_us;
  r.algbw_gbps = algbw;
  r.busbw_gbps = busbw;
  r.iter_p50_us = time_us * 1.25;
  r.iter_p95_us = time_us * 1.5;
  r.iter_p99_us = time_us * 1.75;
  r.iter_max_us = time_us * 2;
  r.iter_slowest_us = {time_us * 1.25, time_us * 2};
  r.iter_mean_p50_us = time_us * 1.125;
  r.blocks = 10;
  r.time_min_us = time_us * 0.75;
  r.time_max_us = time_us * 1.5;
  r.time_spread = 2;
  r.wrong = wrong;
  return r;
}

CollectiveReport collective_mpi_report() {
  CollectiveReport rep;
  rep.config.backend = Backend::kMpi;
  rep.config.ops = {Collective::kAllReduce, Collective::kAllGather, Collective::kAllToAll};
  rep.config.types = {DataType::kFloat32};
  rep.config.sizes = {8, 1 << 20};
  rep.config.warmup_iters = 5;
  rep.config.iters = 20;
  rep.result.backend = Backend::kMpi;
  rep.result.nranks = 2;
  rep.result.rows = {collective_row(Collective::kAllReduce, false, 8, 10.0, 0.0008, 0.0008, 0),
                     collective_row(Collective::kAllReduce, true, 1 << 20, 250.0, 4.194304, 4.194304, 0),
                     collective_row(Collective::kAllGather, false, 1 << 20, 125.0, 8.388608, 4.194304, -1)};
  CollectiveRow unsupported;
  unsupported.op = Collective::kAllToAll;
  unsupported.size = 1 << 20;
  unsupported.unsupported = "needs a size divisible by 2 ranks x 4-byte elements";
  rep.result.rows.push_back(unsupported);
  rep.result.wrong_total = 0;
  rep.backend_reason = "requested";
  rep.arm = "local";
  rep.evidence = {"node-a", "2026-12-01T14:05:00Z", "0.1.0"};
  rep.ranks = {rank_json(0, 0, "node-a", {std::nullopt, 0}, 0, placement("local", 0, {0}, {0}, 128)),
               rank_json(1, 1, "node-a", {std::nullopt, 0}, 0, placement("local", 0, {1}, {0}, 128))};
  return rep;
}

TEST(GoldenPrinter, CollectiveTableAndJson) {
  CollectiveReport rep = collective_mpi_report();
  EXPECT_TRUE(matches_golden(render_collective_table(rep), "printers/collective-mpi.txt"));
  EXPECT_TRUE(matches_golden(json_text(collective_to_json(rep)), "printers/collective-mpi.json"));
  // --wide: nccl-tests' every column, the table as it was before the default fitted 100 columns.
  EXPECT_TRUE(matches_golden(render_collective_table(rep, true), "printers/collective-mpi-wide.txt"));
}

// Who set the pace, with stragglers on purpose: the pace lines under the table (one rank named over the
// calls, the blocks unknown), the dose table, and the row's pace object, lanes, clock rtts and slowdown config.
TEST(GoldenPrinter, CollectivePaceAndDoses) {
  CollectiveReport rep = collective_mpi_report();
  rep.result.rows.resize(1);
  CollectiveRow& row = rep.result.rows[0];
  rep.result.clock_rtt_s = {0, 4e-6};
  std::vector<double> bound = clock_uncertainty_s(rep.result.clock_rtt_s);
  for (int i = 0; i < 3; ++i) {
    double t = i * 100e-6;
    row.iter_lanes.push_back({{t, t + 1e-6, t + 30e-6}, {t, t + 20e-6, t + 30e-6}});  // rank 1 is 19 us late
    row.block_lanes.push_back({{t, t + 1e-6, t + 90e-6}, {t, t + 2e-6, t + 90e-6}});  // 1 us: within the clocks
  }
  row.iter_pace = name_trial_pace(row.iter_lanes, bound);
  row.block_pace = name_trial_pace(row.block_lanes, bound);
  rep.config.slow_ranks = {1};
  rep.config.slow_doses = {{"0%", 0, true}, {"10%", 10, true}};
  rep.config.slow_rounds = 6;
  DoseFigures d0{"0%", 0, 0.1, 10, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, "consistent", 6, row.block_pace, 0, 516.5};
  DoseFigures d1{"10%", 1, 1.1, 11.2, 10.1, 1.1, 0.9, 1.3, 1.1, 0.9, 1.4, 0.1, -0.2, 0.3, "consistent", 6, row.iter_pace, 1, 516.5};
  row.doses = {d0, d1};
  row.window_period_us = 515.25;  // the calls' common start instants; 2 starts came after theirs
  row.windows_missed = 2;
  EXPECT_TRUE(matches_golden(render_collective_table(rep), "printers/collective-pace.txt"));
  EXPECT_TRUE(matches_golden(json_text(collective_to_json(rep)), "printers/collective-pace.json"));
}

// nccl-tests' -J layout: out-of-place and in-place of one size side by side (null where a mode was not
// run), a size whose only mode was unsupported left out, the root as nccl-tests' "%6i" string.
TEST(GoldenPrinter, CollectiveInNcclTestsLayout) {
  CollectiveReport rep = collective_mpi_report();
  rep.config.ops = {Collective::kAllReduce};
  rep.result.rows = {collective_row(Collective::kAllReduce, false, 8, 10.0, 0.0008, 0.0008, 0),
                     collective_row(Collective::kAllReduce, false, 1 << 20, 200.0, 5.24288, 5.24288, 0),
                     collective_row(Collective::kAllReduce, true, 8, 12.0, 0.000667, 0.000667, 0),
                     collective_row(Collective::kAllReduce, true, 1 << 20, 250.0, 4.194304, 4.194304, 0)};
  rep.result.rows.push_back(collective_row(Collective::kAllReduce, false, 1 << 22, 800.0, 5.24288, 5.24288, -1));
  CollectiveRow unsupported;
  unsupported.size = 1 << 23;
  unsupported.unsupported = "too big";
  rep.result.rows.push_back(unsupported);
  rep.config.sizes = {8, 1 << 20, 1 << 22};
  for (auto& r : rep.ranks) r["pid"] = 4242 + r["rank"].get<int>();
  NcclTestsRunInfo info{"2026-12-01 14:05:00", "2026-12-01 14:05:09", {"placebench", "collective", "--ops", "allreduce"},
                        {"NCCL_DEBUG=WARN"}, 0};
  EXPECT_TRUE(matches_golden(render_nccl_tests_json(rep, info), "printers/collective-nccl-tests.json"));
  // nccl-tests' "Avg bus bandwidth": the mean busbw over every measured row and mode (unsupported excluded).
  EXPECT_DOUBLE_EQ(average_bus_bandwidth(rep.result), (0.0008 + 5.24288 + 0.000667 + 4.194304 + 5.24288) / 5);
}

TEST(GoldenPrinter, CollectiveOnGpusWithWrongValues) {
  CollectiveReport rep;
  rep.config.backend = Backend::kNccl;
  rep.config.ops = {Collective::kBroadcast};
  rep.result.backend = Backend::kNccl;
  rep.result.nranks = 2;
  rep.result.rows = {collective_row(Collective::kBroadcast, false, 1 << 20, 50.0, 20.97152, 20.97152, 3)};
  rep.result.wrong_total = 3;
  rep.backend_reason = "auto: every rank has a GPU and NCCL loaded";
  rep.arm = "remote";
  PlacementRecord degenerate = placement("remote", 1, {8, 9}, {1});
  degenerate.degenerate = true;
  rep.ranks = {rank_json(0, 0, "gpu-a", {0, std::nullopt}, 0, placement("remote", 0, {8, 9}, {1})),
               rank_json(1, 0, "gpu-b", {1, std::nullopt}, 1, degenerate)};
  EXPECT_TRUE(matches_golden(render_collective_table(rep), "printers/collective-nccl-wrong.txt"));
}

// ---- gang ------------------------------------------------------------------------------------------

GangAttempt attempt(int n, std::optional<double> ready, std::optional<double> joined, std::optional<double> first,
                    std::optional<double> released) {
  return {n, ready, joined, first, released};
}

GangRank gang_rank(int rank, const std::string& host, bool late, bool missing, double start, std::vector<GangAttempt> attempts) {
  GangRank g;
  g.rank = rank;
  g.host = host;
  g.late = late;
  g.missing = missing;
  g.reported = !missing;
  g.process_start_s = start;
  g.clock_offset_s = rank == 0 ? 0.0 : 0.000125;
  g.clock_rtt_s = rank == 0 ? 0.0 : 0.00025;
  g.attempts = std::move(attempts);
  return g;
}

GangReport gang_report(GangConfig config, GangResult result) {
  GangReport rep;
  rep.config = std::move(config);
  rep.result = std::move(result);
  rep.backend_reason = "requested";
  rep.arm = "local";
  for (const GangRank& g : rep.result.ranks)
    rep.placements.push_back(rank_json(g.rank, g.rank, g.host, {std::nullopt, 0}, 0, placement("local", 0, {g.rank}, {0}, 64)));
  return rep;
}

TEST(GoldenPrinter, GangLateRankCompletesOnRetry) {
  GangConfig c;
  c.late_ranks = {1};
  c.late_delay_s = 2.5;
  c.deadline_s = 2;
  c.retries = 1;
  c.backoff_s = 0.5;
  c.steps = 10;
  GangResult r;
  r.outcome = "complete";
  r.schedule_start_s = 0.5;
  r.completed_attempt = 1;
  r.group_ready_s = 3.25;
  r.time_to_first_step_s = 3.5;
  r.stranded_gpu_s = 2.375;
  r.cleanup_s = 0.125;
  r.retries = 1;
  r.bound_s = 4.5;
  r.ranks = {gang_rank(0, "node-a", false, false, 0.0,
                       {attempt(0, 0.5, std::nullopt, std::nullopt, 2.625), attempt(1, 3.0, 3.25, 3.5, 4.0)}),
             gang_rank(1, "node-a", true, false, 0.015625, {attempt(1, 3.0, 3.25, 3.5, 4.0)})};
  GangReport rep = gang_report(c, r);
  EXPECT_TRUE(matches_golden(render_gang_table(rep), "printers/gang-late.txt"));
  EXPECT_TRUE(matches_golden(json_text(gang_to_json(rep)), "printers/gang-late.json"));
}

TEST(GoldenPrinter, GangMissingRankFailsTheDeadline) {
  GangConfig c;
  c.missing_ranks = {2};
  c.deadline_s = 1;
  c.retries = 0;
  GangResult r;
  r.outcome = "failed_deadline";
  r.schedule_start_s = 0.25;
  r.stranded_gpu_s = 2.0;
  r.cleanup_s = 0.0625;
  r.bound_s = 1.0;
  r.ranks = {gang_rank(0, "node-a", false, false, 0.0, {attempt(0, 0.25, std::nullopt, std::nullopt, 1.3125)}),
             gang_rank(1, "node-b", false, false, 0.03125, {attempt(0, 0.25, std::nullopt, std::nullopt, 1.28125)}),
             gang_rank(2, "node-b", false, true, 0.03125, {})};
  GangReport rep = gang_report(c, r);
  EXPECT_TRUE(matches_golden(render_gang_table(rep), "printers/gang-missing.txt"));
  EXPECT_TRUE(matches_golden(json_text(gang_to_json(rep)), "printers/gang-missing.json"));
}

// ---- versions (--version names this machine's libraries; tests/golden/cli/version.txt has placeholders)

TEST(GoldenPrinter, Versions) {
  VersionReport v{"0.1.0", "0123456789ab", "2.9.0", "Open MPI v4.1.6", "12.4", "12.4", "2.21.5", "6.1.0-18-amd64", "550.54.15"};
  EXPECT_TRUE(matches_golden(render_versions(v), "printers/versions.txt"));
  EXPECT_TRUE(matches_golden(json_text(versions_to_json(v)), "printers/versions.json"));
  // No NVIDIA driver loaded, the kernel unknown: said so in the text, null in the JSON, never a guess.
  VersionReport none{"0.1.0", "0123456789ab", "2.9.0", "Open MPI v4.1.6", "12.4", "not available (no driver)", "2.21.5",
                     std::nullopt, std::nullopt};
  EXPECT_TRUE(matches_golden(render_versions(none), "printers/versions-no-driver.txt"));
  EXPECT_TRUE(matches_golden(json_text(versions_to_json(none)), "printers/versions-no-driver.json"));
}

}  // namespace
