// The staging driver: per arm, a worker thread applies the placement, builds the backend's endpoints,
// and for each size warms up, times `samples` batches and checks the data (see staging.h).
#include "placebench/harness/workloads/staging.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <fmt/format.h>
#include <thread>

#include "placebench/harness/errors.h"
#include "placebench/stats/quantile.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/harness/units.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/device_runtime.h"
#include "staging_endpoints.h"

namespace placebench::harness {

std::string direction_name(Direction d) {
  return d == Direction::kH2D ? "h2d" : d == Direction::kD2H ? "d2h" : "bidir";
}

std::string host_memory_name(HostMemory m) {
  switch (m) {
    case HostMemory::kPinned: return "pinned";
    case HostMemory::kPageable: return "pageable";
    case HostMemory::kRegistered: return "registered";
    case HostMemory::kHostAlloc: return "hostalloc";
  }
  return "?";
}

namespace {

constexpr double kTargetSampleSeconds = 2e-3;

struct Backend {
  std::string name, reason;
  int gpu = -1;
};

Backend choose_backend(const StagingConfig& cfg) {
  kernels::DeviceRuntime rt = kernels::query_device_runtime();
  int gpu = cfg.placement.device.gpu.value_or(0);
  if (cfg.backend == "host") return {"host", "requested", -1};
  if (cfg.backend == "cuda") {
    if (!rt.usable())
      throw InputError("--backend cuda: no usable CUDA device (" + rt.status + "); use --backend host or auto");
    return {"cuda", "requested", gpu};
  }
  if (cfg.backend != "auto") throw InputError("--backend: unknown '" + cfg.backend + "'; accepted: auto, cuda, host");
  if (rt.usable() && !cfg.placement.device.device_numa) return {"cuda", "auto: a CUDA device is usable", gpu};
  return {"host", "auto: " + (rt.usable() ? std::string("--device-numa names a host device") : "CUDA: " + rt.status), -1};
}

void summarise(StagingRow& row) {
  std::vector<double> sorted = row.gbps;
  std::sort(sorted.begin(), sorted.end());
  row.gbps_median = stats::quantile_estimate_sorted(sorted, 0.5);
  row.gbps_p10 = stats::quantile_estimate_sorted(sorted, 0.1);
  row.gbps_p90 = stats::quantile_estimate_sorted(sorted, 0.9);
}

// The placed worker(s) and the endpoints of one arm; built on the arm's own thread.
struct ArmSetup {
  PlacedWorker placed;
  std::unique_ptr<PlacedWorker> second;
  std::unique_ptr<detail::StagingEndpoints> ends;
};

ArmSetup set_up_arm(const StagingConfig& cfg, const Backend& backend, const ArmPlan& plan, std::size_t max_bytes,
                    bool fresh_context) {
  bool cuda = backend.name == "cuda";
  std::size_t placed_bytes = staging_placed_bytes(cfg.memory, cuda, max_bytes);
  ArmSetup s{apply_placement(plan, 0, placed_bytes), nullptr, nullptr};
  if (cfg.direction == Direction::kBidir) s.second = std::make_unique<PlacedWorker>(apply_placement(plan, 1, placed_bytes));
  s.ends = cuda ? detail::make_cuda_endpoints(cfg, backend.gpu, s.placed, s.second.get(), max_bytes, fresh_context)
                : detail::make_host_endpoints(cfg, plan, s.placed, s.second.get(), max_bytes);
  return s;
}

// Runs fn on a new thread (the arm binds that thread, never the caller's) and rethrows its exception.
template <class Fn>
void on_arm_thread(Fn fn) {
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
}

// Everything for one arm, on its own (bound) thread.
std::vector<StagingRow> run_arm(const StagingConfig& cfg, const Backend& backend, const ArmPlan& plan) {
  std::size_t max_bytes = *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
  bool bidir = cfg.direction == Direction::kBidir;
  ArmSetup setup = set_up_arm(cfg, backend, plan, max_bytes, true);  // a CUDA context of this arm's own
  auto& ends = setup.ends;
  const PlacedWorker& placed = setup.placed;
  std::vector<StagingRow> rows;
  for (std::uint64_t bytes : cfg.sizes) {
    std::uint64_t seed = bytes * 1315423911u + static_cast<std::uint64_t>(plan.arm);
    ends->prepare(bytes, seed);
    double one = ends->batch(bytes, std::max(1, cfg.warmup_copies));  // warm-up, not recorded
    int copies = cfg.copies_per_sample > 0
                     ? cfg.copies_per_sample
                     : std::clamp(static_cast<int>(std::ceil(kTargetSampleSeconds * std::max(1, cfg.warmup_copies) /
                                                             std::max(one, 1e-9))), 1, 10000);
    StagingRow row{arm_name(plan.arm), direction_name(cfg.direction), host_memory_name(cfg.memory), bytes, copies, {}, 0, 0, 0,
                   placed.record, std::nullopt};
    if (backend.name == "cuda") row.cuda_context_node = plan.cpu_node;
    for (int s = 0; s < cfg.samples; ++s) row.gbps.push_back(staging_gbps(bytes, copies, ends->batch(bytes, copies), bidir));
    if (auto bad = ends->check(bytes, seed))
      throw std::runtime_error(fmt::format("data check failed: arm {}, {} {}: byte {} differs from what was sent",
                                           row.arm, row.direction, format_size(bytes), *bad));
    summarise(row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

double staging_gbps(std::uint64_t bytes, int copies, double seconds, bool bidir) {
  if (!(seconds > 0)) throw std::invalid_argument("staging_gbps: elapsed time must be positive");
  return static_cast<double>(bytes) * copies * (bidir ? 2 : 1) / seconds / 1e9;
}

PlanRequest staging_plan_request(const StagingConfig& cfg) {
  PlanRequest req = cfg.placement;
  if (cfg.direction == Direction::kBidir) req.workers = 2;  // one thread per direction, disjoint CPUs
  return req;
}

std::size_t staging_placed_bytes(HostMemory memory, bool cuda, std::size_t max_bytes) {
  return memory == HostMemory::kHostAlloc && cuda ? std::min<std::size_t>(max_bytes, 4096) : max_bytes;
}

void check_staging_memory(std::uint64_t max_bytes, Direction direction, const std::string& where) {
  constexpr double kShare = 0.8;
  long double need = static_cast<long double>(max_bytes) * 2 * (direction == Direction::kBidir ? 2 : 1);
  std::uint64_t avail = hostpipe::mem_available_bytes();
  if (avail && need > kShare * static_cast<long double>(avail))
    throw InputError(fmt::format("{}: a {} batch needs {} of buffers (host and device side{}), more than {:.0f}% of the {} this "
                                 "node has available; use smaller sizes",
                                 where, format_size(max_bytes), format_size(static_cast<std::uint64_t>(std::min<long double>(need, 1e19L))),
                                 direction == Direction::kBidir ? ", both directions" : "", kShare * 100, format_size(avail)));
}

StagingResult run_staging(const Inventory& inv, const StagingConfig& cfg) {
  if (cfg.sizes.empty()) throw InputError("--sizes: no size given");
  check_staging_memory(*std::max_element(cfg.sizes.begin(), cfg.sizes.end()), cfg.direction, "--sizes");
  if (cfg.samples < 1) throw InputError("--samples must be at least 1");
  Backend backend = choose_backend(cfg);
  if (backend.name == "host" && cfg.memory == HostMemory::kHostAlloc)
    throw InputError("--memory hostalloc needs the cuda backend (cudaHostAlloc); use pinned or pageable with --backend host");
  std::vector<ArmPlan> plans = plan_arms(inv, staging_plan_request(cfg));
  StagingResult result{backend.name, backend.reason, {}};
  for (const ArmPlan& plan : plans) {
    std::vector<StagingRow> rows;
    on_arm_thread([&] { rows = run_arm(cfg, backend, plan); });
    for (auto& r : rows) result.rows.push_back(std::move(r));
  }
  return result;
}

StagingSteps run_staging_steps(const Inventory&, const StagingConfig& cfg, const ArmPlan& plan, std::uint64_t bytes,
                               int copies, int warmup_steps, int steps, const std::atomic<bool>* stop) {
  check_staging_memory(bytes, cfg.direction, "bytes");
  Backend backend = choose_backend(cfg);
  StagingSteps out{backend.name, {}, {}, false};
  out.step_ns.reserve(static_cast<std::size_t>(steps));
  on_arm_thread([&] {
    ArmSetup setup = set_up_arm(cfg, backend, plan, bytes, false);  // the pipeline's consumer shares the context
    std::uint64_t seed = bytes * 2654435761u + static_cast<std::uint64_t>(plan.arm);
    setup.ends->prepare(bytes, seed);
    for (int i = 0; i < warmup_steps; ++i) setup.ends->batch(bytes, copies);
    for (int i = 0; i < steps; ++i) {
      if (stop && stop->load(std::memory_order_relaxed)) {
        out.stopped = true;
        break;
      }
      out.step_ns.push_back(static_cast<std::int64_t>(setup.ends->batch(bytes, copies) * 1e9));
    }
    if (auto bad = setup.ends->check(bytes, seed))
      throw std::runtime_error(fmt::format("data check failed: arm {}: byte {} of {} differs from what was sent",
                                           arm_name(plan.arm), *bad, format_size(bytes)));
    out.placement = setup.placed.record;
  });
  return out;
}

nlohmann::json staging_to_json(const StagingResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : result.rows) {
    rows.push_back({{"arm", r.arm},
                    {"direction", r.direction},
                    {"memory", r.memory},
                    {"bytes", r.bytes},
                    {"copies_per_sample", r.copies_per_sample},
                    {"gbps_median", r.gbps_median},
                    {"gbps_p10", r.gbps_p10},
                    {"gbps_p90", r.gbps_p90},
                    {"samples", r.gbps.size()},
                    {"gbps_samples", r.gbps},
                    {"placement", placement_to_json(r.placement)}});
    if (r.cuda_context_node) rows.back()["cuda_context_node"] = *r.cuda_context_node;
  }
  return {{"schema_version", 1}, {"kind", "staging"}, {"backend", result.backend},
          {"backend_reason", result.backend_reason}, {"rows", rows}};
}

std::string render_staging_table(const StagingResult& result) {
  std::string out = fmt::format("Backend: {} ({})\n\n", result.backend, result.backend_reason);
  std::vector<std::vector<std::string>> rows = {{"Arm", "Dir", "Memory", "Size", "GB/s med", "p10", "p90", "samples", "placement"}};
  for (const auto& r : result.rows)
    rows.push_back({r.arm, r.direction, r.memory, format_size(r.bytes), fmt::format("{:.2f}", r.gbps_median),
                    fmt::format("{:.2f}", r.gbps_p10), fmt::format("{:.2f}", r.gbps_p90), std::to_string(r.gbps.size()),
                    r.placement.status + (r.placement.degenerate ? " (degenerate)" : "")});
  out += fit_columns(rows, "lllrrrrrl");  // columns as wide as their widest cell: 100 columns for every arm
  out += "(GB/s = 10^9 bytes/s; sizes in KiB/MiB/GiB = 2^10/2^20/2^30 bytes)\n";
  return out;
}

}  // namespace placebench::harness
