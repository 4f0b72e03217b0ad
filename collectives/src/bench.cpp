// The collectives benchmark (see bench.h). Order per case: warm-up calls; a checked call on freshly
// written inputs with the output pre-filled with a sentinel; `blocks` timed blocks (barrier, one
// untimed call to absorb the barrier's exit skew, `iters` calls, one wait; timed by the backend: host clock for MPI, CUDA events for NCCL), reduced by
// block_timing.h to the median block of the mean over ranks (what nccl-tests reports, made robust to a
// preempted block); then `iters` per-iteration timings (a common start instant, one call, wait: start_window.h), of which rank 0 takes
// the slowest rank and the mean over ranks per iteration. Nothing is printed here. Every call runs under
// the session's watchdog (watchdog.h): a frozen peer aborts the job instead of hanging this rank.
#include "placebench/stats/quantile.h"
#include "placebench/collectives/bench.h"

#include <algorithm>
#include <cstring>

#include "block_timing.h"
#include "ops/op.h"
#include "pace_timing.h"
#include "placebench/collectives/clock_sync.h"
#include "runner.h"
#include "test_hooks.h"

namespace placebench::collectives {
namespace {

using detail::CollectiveOp;
using detail::OpCall;
using detail::OpContext;
using detail::OpLayout;

constexpr unsigned char kSentinel = 0xA5;  // never a valid output of the inputs used (see input_value)

// Hyndman & Fan type 7 on sorted values: the statistics library's one quantile (0 for no values).
double quantile_sorted(const std::vector<double>& v, double q) {
  return v.empty() ? 0.0 : stats::quantile_estimate_sorted(v, q);
}

struct Case {
  const CollectiveOp* op;
  OpContext ctx;
  OpLayout layout;
};

class CaseRunner {
 public:
  CaseRunner(MpiSession& session, detail::Runner& runner, const CollectiveBenchConfig& cfg, void* host, std::size_t half,
             const ClockSync& clock, std::vector<double> uncertainty_s)
      : session_(session), runner_(runner), cfg_(cfg), stage_in_(host), stage_out_(static_cast<char*>(host) + half),
        offset_s_(clock.offset_s), uncertainty_s_(std::move(uncertainty_s)) {}

  CollectiveRow run(const Case& c, std::uint64_t requested_bytes) {
    CollectiveRow row;
    row.op = c.op->id();
    row.type = c.ctx.type;
    row.redop = c.ctx.redop;
    row.root = collective_rooted(row.op) ? c.ctx.root : -1;
    row.in_place = c.ctx.in_place;
    if (const char* why = c.op->unsupported(c.ctx)) {
      row.size = requested_bytes;
      row.unsupported = why;
      return row;
    }
    std::size_t ts = type_size(c.ctx.type);
    row.size = c.layout.count * ts;
    row.count = c.layout.count;
    OpCall call{c.ctx, c.layout, c.ctx.in_place ? runner_.recv_buffer() : runner_.send_buffer(), runner_.recv_buffer(),
                nullptr, nullptr};
    // Every call of this case runs under the watchdog: a peer that stops answering aborts the job.
    Watchdog::Watch watch = session_.watch(describe(row), call_allowance_s(static_cast<double>(row.size) * session_.size()));

    run_calls(c, call, cfg_.warmup_iters, watch);
    if (cfg_.check) {
      prepare(c);
      run_calls(c, call, 1, watch);
      row.wrong = static_cast<std::int64_t>(session_.sum(static_cast<double>(count_wrong(c))));
    }

    measure(c, call, watch, row);
    // nccl-tests: algbw = size / time (1 GB/s = 1e9 B/s), busbw = algbw x the collective's factor.
    row.algbw_gbps = row.time_us > 0 ? static_cast<double>(row.size) / (row.time_us * 1e-6) / 1e9 : 0;
    row.busbw_gbps = row.algbw_gbps * c.op->bus_factor(session_.size());
    return row;
  }

 private:
  // The timed blocks, the timed single calls and (ranks slowed) the dose rounds; each rank records its
  // start, arrival and departure on the common clock for every block and call (pace_timing.h).
  void measure(const Case& c, const OpCall& call, Watchdog::Watch& watch, CollectiveRow& row) {
    std::vector<double> block_s(static_cast<std::size_t>(std::max(cfg_.blocks, 1)));
    detail::PaceRecorder block_rec(offset_s_, block_s.size());
    detail::PaceRecorder iter_rec(offset_s_, static_cast<std::size_t>(cfg_.iters));
    for (double& b : block_s) {
      session_.barrier();
      double start = block_rec.now_s();
      // One untimed call first: ranks leave a barrier up to a message latency apart, and that skew would
      // land in the block (up to one latency over 20 calls: about 5% at 8 B); after one call the ranks run in the
      // steady state of back-to-back calls, which is what a long plain loop measures.
      run_calls(c, call, 1, watch);
      double arrive = block_rec.now_s();
      b = run_calls(c, call, cfg_.iters, watch) / cfg_.iters;
      block_rec.record(start, arrive, block_rec.now_s());
    }
    // The timed single calls start at common instants on the synchronized clock (start_window.h), a
    // period apart that a few calls started at a barrier measure (or, --call-start barrier, at a
    // barrier's exit); each: the start, this rank's extra work (a straggler's dose), one call.
    detail::StartWindows windows(
        cfg_.start_at_barrier
            ? detail::WindowPlan{}
            : detail::agree_windows(session_, offset_s_, detail::window_period_s(calibrate_step_s(c, call, watch), 0)),
        offset_s_);
    detail::TimedStep one_step = [&](double spin_s, detail::PaceRecorder& rec, detail::StartWindows& w) {
      double start = 0;
      if (cfg_.start_at_barrier) {
        session_.barrier();
        start = rec.now_s();
      } else {
        start = w.wait_next();
      }
      if (spin_s > 0) detail::spin_for_s(spin_s);
      double arrive = rec.now_s();
      double dt = run_calls(c, call, 1, watch);
      rec.record(start, arrive, rec.now_s());
      return dt;
    };
    std::vector<double> per_iter(static_cast<std::size_t>(cfg_.iters));
    for (double& dt : per_iter) dt = one_step(0, iter_rec, windows);
    row.window_period_us = windows.period_s() * 1e6;
    row.windows_missed = static_cast<int>(session_.sum(static_cast<double>(windows.missed())));
    std::vector<double> all_blocks = session_.gather_doubles(block_s, 0);
    std::vector<double> all_iters = session_.gather_doubles(per_iter, 0);
    std::vector<double> block_wire = session_.gather_doubles(block_rec.wire(), 0);
    std::vector<double> iter_wire = session_.gather_doubles(iter_rec.wire(), 0);
    double base_step_s = 0;
    if (session_.rank() == 0) {
      fill_figures(row, all_blocks, all_iters);
      fill_pace(row, block_wire, iter_wire);
      std::vector<double> steps;
      for (const auto& b : row.iter_lanes) steps.push_back(detail::step_s(b));
      base_step_s = detail::median_of(steps);
    }
    if (cfg_.slow_ranks.empty() || cfg_.slow_doses.empty()) return;
    base_step_s = session_.broadcast(base_step_s, 0);
    row.doses = detail::run_dose_rounds(session_, cfg_, offset_s_, base_step_s, uncertainty_s_, one_step);
  }

  // The step of one call started at a barrier (the barrier's exit to this rank's departure): the median
  // of kCalibrationCalls untimed calls, the largest over ranks. The windows' period is made from it.
  double calibrate_step_s(const Case& c, const OpCall& call, Watchdog::Watch& watch) {
    constexpr std::size_t kCalibrationCalls = 5;
    std::vector<double> step(kCalibrationCalls);
    for (double& s : step) {
      session_.barrier();
      double start = steady_now_s();
      run_calls(c, call, 1, watch);
      s = steady_now_s() - start;
    }
    return session_.max(detail::median_of(step));
  }

  void fill_pace(CollectiveRow& row, const std::vector<double>& block_wire, const std::vector<double>& iter_wire) const {
    auto n = static_cast<std::size_t>(session_.size());
    row.block_lanes = detail::timeline_from_wire(block_wire, n);
    row.iter_lanes = detail::timeline_from_wire(iter_wire, n);
    row.block_pace = name_trial_pace(row.block_lanes, uncertainty_s_);
    row.iter_pace = name_trial_pace(row.iter_lanes, uncertainty_s_);
  }

  // n calls between the backend's timing marks, then the wait for them: seconds for the n calls, every
  // one complete. Progress is counted per chunk of kChunk calls (one relaxed atomic add per chunk, not
  // per call, so the timed loop is the calls), and each chunk is allowed what its calls need; the wait
  // is allowed what all n need (NCCL queues them). Warm-up and check calls ignore the time.
  double run_calls(const Case& c, const OpCall& call, int n, Watchdog::Watch& watch) {
    constexpr int kChunk = 64;
    watch.expect_calls(static_cast<std::size_t>(std::min(n, kChunk)));
    runner_.begin_timing();
    for (int done = 0; done < n;) {
      int k = std::min(kChunk, n - done);
      runner_.run_n(*c.op, call, k);
      watch.progress();
      done += k;
    }
    watch.expect_calls(static_cast<std::size_t>(n));
    double s = runner_.end_timing_s();
    watch.expect_calls(1);
    watch.progress();
    return s;
  }

  // Rank 0: the row's figures from every rank's block and per-iteration times (rank-major).
  void fill_figures(CollectiveRow& row, const std::vector<double>& all_blocks, const std::vector<double>& all_iters) const {
    auto n = static_cast<std::size_t>(session_.size());
    detail::BlockFigures b = detail::reduce_blocks(all_blocks, n);
    row.blocks = static_cast<int>(b.blocks_s.size());
    row.time_us = b.median_s * 1e6;
    row.time_min_us = b.min_s * 1e6;
    row.time_max_us = b.max_s * 1e6;
    row.time_spread = b.spread;
    detail::IterationFigures it = detail::reduce_iterations(all_iters, n);
    row.iter_slowest_us.resize(it.slowest_s.size());
    for (std::size_t i = 0; i < it.slowest_s.size(); ++i) row.iter_slowest_us[i] = it.slowest_s[i] * 1e6;
    std::vector<double> slowest = it.slowest_s;
    std::sort(slowest.begin(), slowest.end());
    row.iter_p50_us = quantile_sorted(slowest, 0.50) * 1e6;
    row.iter_p95_us = quantile_sorted(slowest, 0.95) * 1e6;
    row.iter_p99_us = quantile_sorted(slowest, 0.99) * 1e6;
    row.iter_max_us = slowest.empty() ? 0 : slowest.back() * 1e6;
    row.iter_mean_p50_us = detail::median_of(it.rank_mean_s) * 1e6;
  }

  static std::string describe(const CollectiveRow& row) {
    return "collective " + collective_name(row.op) + " " + std::to_string(row.size) + " B (" + type_name(row.type) + ", " +
           (row.in_place ? "in-place" : "out-of-place") + ")";
  }

  // Output pre-filled with the sentinel, then this rank's inputs written where the call reads them.
  void prepare(const Case& c) {
    std::size_t ts = type_size(c.ctx.type);
    std::size_t out_bytes = c.layout.buffer_count() * ts;
    std::memset(stage_out_, kSentinel, out_bytes);
    runner_.upload(runner_.recv_buffer(), stage_out_, out_bytes);
    bool reduces = collective_reduces(c.op->id());
    for (std::size_t j = 0; j < c.layout.send_count; ++j)
      store_element(stage_in_, c.ctx.type, j, detail::input_value(c.ctx, reduces, c.ctx.rank, j));
    void* dst = c.ctx.in_place ? static_cast<char*>(runner_.recv_buffer()) + c.layout.in_offset * ts : runner_.send_buffer();
    runner_.upload(dst, stage_in_, c.layout.send_count * ts);
  }

  std::size_t count_wrong(const Case& c) {
    if (!c.op->output_checked(c.ctx)) return 0;
    std::size_t ts = type_size(c.ctx.type);
    std::size_t off = c.layout.out_offset * ts;
    char* out = static_cast<char*>(stage_out_) + off;
    runner_.download(out, static_cast<char*>(runner_.recv_buffer()) + off, c.layout.recv_count * ts);
    if (cfg_.corrupt_rank == c.ctx.rank) out[0] = static_cast<char>(out[0] ^ 0x5A);  // test hook
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < c.layout.recv_count; ++i)
      if (load_element_bits(out, c.ctx.type, i) != element_bits(c.ctx.type, c.op->expected(c.ctx, c.layout, i))) ++wrong;
    return wrong;
  }

  MpiSession& session_;
  detail::Runner& runner_;
  const CollectiveBenchConfig& cfg_;
  void* stage_in_;
  void* stage_out_;
  double offset_s_;                    // this rank's clock offset to rank 0
  std::vector<double> uncertainty_s_;  // rank 0: every rank's clock error bound (pace.h)
};

}  // namespace

std::size_t bench_host_bytes(const CollectiveBenchConfig& cfg, int nranks) {
  std::size_t most = 64;
  for (Collective op : cfg.ops)
    for (DataType type : cfg.types)
      for (std::uint64_t bytes : cfg.sizes)
        for (int rank : {0, nranks - 1}) {
          OpContext ctx{nranks, rank, cfg.root, type, cfg.redop, cfg.backend, false};
          OpLayout l = detail::collective_op(op).layout(static_cast<std::size_t>(bytes), ctx);
          most = std::max(most, l.buffer_count() * type_size(type));
        }
  most = (most + 4095) / 4096 * 4096;  // page-aligned halves
  return 2 * most;
}

CollectiveBenchResult run_collective_bench(MpiSession& session, const CollectiveBenchConfig& cfg, void* host_memory,
                                           std::size_t host_bytes) {
  std::size_t half = host_bytes / 2;
  detail::write_test_pid_file(session.rank());
  std::unique_ptr<detail::Runner> runner;
  {
    Watchdog::Watch watch = session.watch(cfg.backend == Backend::kMpi ? "MPI runner setup" : "NCCL communicator setup");
    runner = cfg.backend == Backend::kMpi ? detail::make_mpi_runner(session, host_memory, half)
                                          : detail::make_nccl_runner(session, cfg.gpu, half);
  }
  // One clock for the pace records: every rank's offset to rank 0 and its error bound (clock_sync.h).
  ClockSync clock = sync_clock_to_rank0(session);
  CollectiveBenchResult result{cfg.backend, session.size(), {}, 0, session.gather_doubles({clock.rtt_s}, 0)};
  CaseRunner cases(session, *runner, cfg, host_memory, half, clock, clock_uncertainty_s(result.clock_rtt_s));
  for (Collective id : cfg.ops) {
    const CollectiveOp& op = detail::collective_op(id);
    for (DataType type : cfg.types)
      for (bool in_place : cfg.in_place_modes)
        for (std::uint64_t bytes : cfg.sizes) {
          OpContext ctx{session.size(), session.rank(), cfg.root, type, cfg.redop, cfg.backend, in_place};
          Case c{&op, ctx, op.layout(static_cast<std::size_t>(bytes), ctx)};
          CollectiveRow row = cases.run(c, bytes);
          if (row.wrong > 0) result.wrong_total += row.wrong;
          result.rows.push_back(std::move(row));
        }
  }
  return result;
}

}  // namespace placebench::collectives
