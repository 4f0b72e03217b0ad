// Collective trials for the runner under mpirun (see workload_run.h). Placement and backend choice
// follow `placebench collective`: each rank places itself for its own device (local rank), and all
// ranks use NCCL only when every one of them can.
#include <numaif.h>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/mpi_session.h"
#include "placebench/collectives/nccl_library.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/harness/errors.h"
#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/device_runtime.h"
#include "workload_run.h"

namespace placebench::harness::detail {
namespace {

namespace coll = placebench::collectives;

// MPI calls must come from the main thread, so collective trials bind it: undo the previous trial's
// binding first, so that `unpinned` really is unpinned.
void reset_main_thread_placement() {
  hostpipe::bind_current_thread(hostpipe::read_allowed_sets().cpus);
  set_mempolicy(MPOL_DEFAULT, nullptr, 0);
}

coll::CollectiveBenchConfig bench_config(const ExperimentConfig& config, const ClassConfig& cls) {
  const nlohmann::json& p = cls.workload.params;
  coll::CollectiveBenchConfig cfg;
  cfg.ops = {*coll::parse_collective(p.at("op").get<std::string>())};
  cfg.types = {*coll::parse_type(p.at("dtype").get<std::string>())};
  cfg.redop = *coll::parse_redop(p.at("redop").get<std::string>());
  cfg.sizes = {p.at("bytes").get<std::uint64_t>()};
  cfg.iters = config.steps;
  cfg.warmup_iters = config.warmup_steps;
  cfg.in_place_modes = {false};
  return cfg;
}

bool can_use_nccl(const RankDevice& dev) {
  return dev.device.gpu.has_value() && kernels::query_device_runtime().usable() && coll::nccl_availability().loaded;
}

}  // namespace

WorkloadRun collective_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls, Arm arm,
                             coll::MpiSession& session) {
  reset_main_thread_placement();
  coll::CollectiveBenchConfig cfg = bench_config(config, cls);
  RankIdentity who{session.rank(), session.local_rank(), session.local_size(), session.host()};
  PlanRequest req = cls.plan_request({arm});
  RankDevice dev = rank_device(inv, req.device, who, 1);
  bool nccl = cls.workload.backend != "mpi" && can_use_nccl(dev);
  if (cls.workload.backend == "nccl" && !nccl)
    throw InputError("class " + cls.name + ": backend nccl needs a CUDA device and NCCL on every rank");
  // All ranks must agree: one rank without NCCL makes everyone use MPI.
  nccl = session.agree_max(nccl ? 0 : 1) == 0;
  cfg.backend = nccl ? coll::Backend::kNccl : coll::Backend::kMpi;
  if (dev.device.gpu) cfg.gpu = *dev.device.gpu;
  RankPlacement placed = place_rank(inv, req, arm, who, 1, coll::bench_host_bytes(cfg, session.size()));
  coll::CollectiveBenchResult result =
      coll::run_collective_bench(session, cfg, placed.placed.buffer.data(), placed.placed.buffer.size());
  std::vector<std::string> ranks = session.gather_strings(rank_to_json(who, placed).dump(), 0);
  const coll::CollectiveRow& row = result.rows.at(0);
  if (!row.unsupported.empty()) throw InputError("class " + cls.name + ": " + row.unsupported);
  if (result.wrong_total > 0)
    throw std::runtime_error("class " + cls.name + ": " + std::to_string(result.wrong_total) + " wrong elements in the result");
  WorkloadRun w{nccl ? "nccl" : "mpi", {}, placed.placed.record, nlohmann::json::object(), false, {}};
  for (double us : row.iter_slowest_us) w.step_ns.push_back(static_cast<std::int64_t>(us * 1e3));
  nlohmann::json rank_records = nlohmann::json::array();
  for (const auto& r : ranks) rank_records.push_back(nlohmann::json::parse(r));
  w.extra = {{"nranks", session.size()}, {"size", row.size}, {"count", row.count}, {"time_us", row.time_us},
             {"algbw", row.algbw_gbps}, {"busbw", row.busbw_gbps}, {"placement_ranks", rank_records}};
  return w;
}

}  // namespace placebench::harness::detail
