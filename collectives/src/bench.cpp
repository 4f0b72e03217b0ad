// The collectives benchmark (see bench.h). Order per case: warm-up calls; a checked call on freshly
// written inputs with the output pre-filled with a sentinel; the pipelined timing (barrier, `iters`
// calls, one wait: what nccl-tests reports, averaged over ranks as nccl-tests' default `-a 1`); then
// `iters` per-iteration timings (barrier, one call, wait), of which rank 0 takes the slowest rank per
// iteration and reports its p50/p95/p99/max. Nothing is printed here. Every call runs under the
// session's watchdog (watchdog.h): a frozen peer aborts the job instead of hanging this rank.
#include "placebench/stats/quantile.h"
#include "placebench/collectives/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "ops/op.h"
#include "runner.h"
#include "test_hooks.h"

namespace placebench::collectives {
namespace {

using detail::CollectiveOp;
using detail::OpCall;
using detail::OpContext;
using detail::OpLayout;

constexpr unsigned char kSentinel = 0xA5;  // never a valid output of the inputs used (see input_value)

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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
  CaseRunner(MpiSession& session, detail::Runner& runner, const CollectiveBenchConfig& cfg, void* host, std::size_t half)
      : session_(session), runner_(runner), cfg_(cfg), stage_in_(host), stage_out_(static_cast<char*>(host) + half) {}

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

    session_.barrier();
    double t0 = now_s();
    run_calls(c, call, cfg_.iters, watch);
    double mine = (now_s() - t0) / cfg_.iters;
    row.time_us = session_.sum(mine) / session_.size() * 1e6;

    std::vector<double> per_iter(static_cast<std::size_t>(cfg_.iters));
    for (auto& dt : per_iter) {
      session_.barrier();
      double s = now_s();
      run_calls(c, call, 1, watch);
      dt = now_s() - s;
    }
    std::vector<double> all = session_.gather_doubles(per_iter, 0);
    if (session_.rank() == 0) {
      std::vector<double> slowest(per_iter.size(), 0);
      for (std::size_t r = 0; r < static_cast<std::size_t>(session_.size()); ++r)
        for (std::size_t i = 0; i < per_iter.size(); ++i) slowest[i] = std::max(slowest[i], all[r * per_iter.size() + i]);
      row.iter_slowest_us.resize(slowest.size());
      for (std::size_t i = 0; i < slowest.size(); ++i) row.iter_slowest_us[i] = slowest[i] * 1e6;
      std::sort(slowest.begin(), slowest.end());
      row.iter_p50_us = quantile_sorted(slowest, 0.50) * 1e6;
      row.iter_p95_us = quantile_sorted(slowest, 0.95) * 1e6;
      row.iter_p99_us = quantile_sorted(slowest, 0.99) * 1e6;
      row.iter_max_us = slowest.back() * 1e6;
    }
    // nccl-tests: algbw = size / time (1 GB/s = 1e9 B/s), busbw = algbw x the collective's factor.
    row.algbw_gbps = row.time_us > 0 ? static_cast<double>(row.size) / (row.time_us * 1e-6) / 1e9 : 0;
    row.busbw_gbps = row.algbw_gbps * c.op->bus_factor(session_.size());
    return row;
  }

 private:
  // n calls, then the wait for them; each counts as progress (one relaxed atomic add: cheap enough for
  // the timed loops), and the wait is allowed what n calls need.
  void run_calls(const Case& c, const OpCall& call, int n, Watchdog::Watch& watch) {
    for (int i = 0; i < n; ++i) {
      runner_.run(*c.op, call);
      watch.progress();
    }
    watch.expect_calls(static_cast<std::size_t>(n));
    runner_.wait();
    watch.expect_calls(1);
    watch.progress();
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
  CaseRunner cases(session, *runner, cfg, host_memory, half);
  CollectiveBenchResult result{cfg.backend, session.size(), {}, 0};
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
