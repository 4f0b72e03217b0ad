// Before the round loop: what must hold before anything is measured (preflight), then a new run directory
// or a resumed one (see run_steps.h).
#include <fmt/format.h>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/workloads/staging.h"
#include "placebench/kernels/device_runtime.h"
#include "run_json_context.h"
#include "run_steps.h"

namespace placebench::harness::detail {
namespace {

// Every class planned now, so that a class this node cannot run fails before anything is measured.
void check_classes_runnable(const ExperimentConfig& config, const Inventory& inv) {
  for (const auto& cls : config.classes) {
    try {
      plan_arms(inv, cls.plan_request(cls.arms()));
      if (cls.workload.type == "staging") {
        check_staging_memory(cls.workload.bytes, cls.workload.direction, "workload.bytes");
        bool needs_cuda = cls.workload.backend == "cuda";
        bool hostalloc = cls.workload.memory == HostMemory::kHostAlloc;
        if (needs_cuda || (hostalloc && cls.workload.backend == "auto")) {
          kernels::DeviceRuntime rt = kernels::query_device_runtime();
          if (!rt.usable() && needs_cuda)
            throw InputError("workload.backend cuda: no usable CUDA device (" + rt.status + "); use backend auto or host");
          // auto falls back to the host backend here, where hostalloc (cudaHostAlloc) would not be what is measured.
          if (!rt.usable())
            throw InputError("workload.memory hostalloc: backend auto finds no usable CUDA device (" + rt.status +
                             ") and hostalloc is cudaHostAlloc; use memory pinned or pageable on this node");
        }
      }
      check_pipeline_class(inv, config, cls);
    } catch (const InputError& e) {
      throw InputError(config.source + ": class " + cls.name + ": " + e.what());
    }
  }
}

// The summary a resumed run will replace at its end must be one this placebench reads (its schema version,
// every field) and record no more trials than trials.jsonl holds: else the run would overwrite what it
// cannot account for. Refused before anything is written, as `compare --write-summary` refuses it.
void refuse_to_replace_summary(const RunDirectory& dir) {
  if (!dir.has_summary()) return;
  RunSummary recorded = dir.read_summary();  // InputError when damaged or of another schema version
  std::vector<std::string> ignored;
  std::size_t held = dir.read_trial_records(ignored).size();
  if (recorded.trials > held)
    throw InputError(fmt::format("{}/summary.json records {} trials and trials.jsonl holds {}; not resuming over it: "
                                 "restore trials.jsonl, or delete summary.json to continue from the trials left",
                                 dir.path(), recorded.trials, held));
}

}  // namespace

// ---- preflight: what must hold before anything is measured ----

void require_mpirun_for_collectives(const ExperimentConfig& config, const Ranks& ranks) {
  for (const auto& cls : config.classes)
    if (cls.workload.type == "collective" && !ranks.multi)
      throw InputError(config.source + ": class " + cls.name + ": collective workloads run under mpirun with at least 2 "
                       "ranks (mpirun -np N placebench run --config ...)");
}

// ---- open or resume ----


// A new run: its classes checked, then (the root) run.json written in a new run directory.
RunState start_run(const ExperimentConfig& config, const Inventory& inv, const RunOptions& opt, const Ranks& ranks,
                   std::ostream& log) {
  check_classes_runnable(config, inv);
  RunState state;
  if (!ranks.writer) return state;
  nlohmann::json context = make_run_context(config, inv, opt.command_line);
  if (ranks.session) context["mpi"] = {{"ranks", ranks.session->size()}};
  if (ranks.per_node)
    context["per_node"] = {{"node", ranks.node.node}, {"nodes", ranks.node.nodes}, {"ranks_on_node", ranks.node.ranks_on_node},
                           {"launcher_local_rank", launcher_local_rank()}};
  for (const auto& w : context["system"].value("warnings", nlohmann::json::array()))
    log << "placebench run: warning: " << w.get<std::string>() << "\n";
  if (ranks.per_node) {
    std::string base = (opt.out_dir.empty() ? config.output_dir : opt.out_dir) + "/" + ranks.node.node;
    state.dir = RunDirectory::create(base, "", ranks.node.node, context);
  } else {
    state.dir = RunDirectory::create(config.output_dir, opt.out_dir, inv.host, context);
  }
  return state;
}

// A resumed run: the root reads (and repairs) the directory -- other ranks may not share its filesystem --
// and, under mpirun, sends every rank the config and the slots already recorded. A failure on the root
// reaches the other ranks before they wait in a collective.
RunState resume_run(ExperimentConfig& config, const RunOptions& opt, const Ranks& ranks, std::ostream& log) {
  RunState state;
  std::string error;
  if (ranks.root) {
    try {
      state.dir = RunDirectory::open(opt.resume_dir);
      config = *state.dir->config();
      refuse_to_replace_summary(*state.dir);  // before the repair below changes anything
      std::vector<std::string> warnings;
      state.trials = state.dir->read_trial_records(warnings, /*repair=*/true);
      for (const auto& w : warnings) log << "placebench run: warning: " << w << "\n";
    } catch (const std::exception& e) {
      if (!ranks.multi) throw;
      error = e.what();
    }
  }
  for (const auto& t : state.trials) state.done.insert({t.class_name, t.round, t.cell()});
  state.recorded = state.trials.size();
  if (!ranks.multi) return state;
  if (agree(ranks.session, !error.empty())) {
    std::string why = ranks.session->broadcast_string(error, 0);
    throw AgreedInputError(why.empty() ? "--resume " + opt.resume_dir + ": rank 0 could not open the run" : why);
  }
  RunDirectory* dir = state.dir ? &*state.dir : nullptr;
  ResumeState shared = share_resume_state(*ranks.session, dir, state.trials, opt.resume_dir);
  if (!ranks.root) config = config_from_json(shared.config);
  for (const auto& d : shared.done)
    state.done.insert({d[0].get<std::string>(), d[1].get<int>(), d[2].get<std::string>()});
  state.recorded = shared.recorded;
  return state;
}

}  // namespace placebench::harness::detail
