// Collective trials for the runner under mpirun (see workload_run.h). Placement and backend choice
// follow `placebench collective`: each rank places itself for its own device (local rank), and all
// ranks use NCCL only when every one of them can (collectives_driver/backend_choice.h).
#include <stdexcept>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/collectives_driver/backend_choice.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/device_runtime.h"
#include "workload_run.h"

namespace placebench::harness::detail {
namespace {

namespace coll = placebench::collectives;

// MPI calls must come from the main thread, so collective trials bind it: undo the previous trial's
// binding first, so that `unpinned` really is unpinned. The CPUs are the ones the process was allowed
// when the inventory was taken: /proc/self/status shows the main thread's own, possibly bound, set.
void reset_main_thread_placement(const Inventory& inv) {
  std::vector<int> allowed =
      inv.allowed_cpus.empty() ? hostpipe::read_allowed_sets().cpus : hostpipe::parse_cpulist(inv.allowed_cpus);
  std::string err = hostpipe::bind_current_thread(allowed);
  if (!err.empty())
    throw std::runtime_error("collective trial: cannot unbind the main thread (bind it to the allowed CPUs " +
                             hostpipe::format_cpulist(allowed) + "): " + err +
                             "; the previous trial's binding would leak into this one");
  err = hostpipe::reset_current_thread_memory();
  if (!err.empty())
    throw std::runtime_error("collective trial: cannot reset the main thread's memory policy: " + err +
                             "; the previous trial's memory binding would leak into this one");
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
  // A trial's statistic is its per-iteration step times; its recorded time_us is the median of 3 blocks of
  // `steps` calls (one preempted block cannot move it) rather than the command's 10, to keep trials short.
  cfg.blocks = 3;
  cfg.in_place_modes = {false};
  return cfg;
}

}  // namespace

WorkloadRun collective_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls, Arm arm,
                             coll::MpiSession& session) {
  reset_main_thread_placement(inv);
  coll::CollectiveBenchConfig cfg = bench_config(config, cls);
  const RankIdentity who = rank_identity(session);
  PlanRequest req = cls.plan_request({arm});
  RankDevice dev = rank_device(inv, req.device, who, 1);
  coll::Backend mine = choose_class_backend(cls.name, cls.workload.backend, nccl_support(dev, kernels::query_device_runtime()));
  cfg.backend = agree_on_backend(session, mine);
  bool nccl = cfg.backend == coll::Backend::kNccl;
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
  // Who set the pace over the trial's timed calls (pace.h), and that rank's host: fleet counts suspects.
  int setter = row.iter_pace.setter;
  w.extra["pace_setter"] = setter >= 0 ? nlohmann::json(setter) : nlohmann::json("unknown");
  if (setter >= 0 && static_cast<std::size_t>(setter) < rank_records.size())
    w.extra["pace_setter_host"] = rank_records[static_cast<std::size_t>(setter)].value("host", "");
  return w;
}

}  // namespace placebench::harness::detail
