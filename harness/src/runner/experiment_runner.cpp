// The experiment runner (see experiment_runner.h), in four steps: preflight (what must hold before anything
// is measured), open or resume the run directory, the round loop (for each round, each active class runs
// its arms in the round's order; every finished trial is appended, fsync'ed, before the next starts; after
// each round a class stops when every arm's sequential rule says so), and finish (summary.json). The steps
// live in run_open.cpp, round_loop.cpp and rank_sync.cpp (run_steps.h); this file runs them in order.
#include "placebench/harness/runner/experiment_runner.h"

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/errors.h"
#include "placebench/kernels/device_runtime.h"
#include "run_steps.h"

namespace placebench::harness {
namespace {

using detail::Ranks;
using detail::RunState;

int max_trials(const ExperimentConfig& config) {
  std::size_t arms = 0;
  for (const auto& c : config.classes) arms += c.cells();
  return static_cast<int>(static_cast<std::size_t>(config.max_rounds) * arms);  // max_rounds >= 1 (config_limits)
}

// ---- finish: the summary, complete or not ----

RunOutcome finish(const ExperimentConfig& config, const Ranks& ranks, const RunState& state, bool complete) {
  RunOutcome out{"", {}, {}, complete};
  if (ranks.writer) {
    out = RunOutcome{state.dir->path(), {}, {}, complete};
    out.classes = analyze_run(config, state.trials);
    state.dir->write_summary(RunSummary{out.classes, out.complete, state.trials.size()});
  }
  if (ranks.per_node && ranks.multi) {
    std::vector<std::string> dirs = ranks.session->gather_strings(out.dir, 0);
    for (auto& d : dirs)
      if (!d.empty()) out.node_dirs.push_back(std::move(d));
  } else if (ranks.per_node) {
    out.node_dirs.push_back(out.dir);
  }
  return out;
}

}  // namespace

LoadedRun load_run(const std::string& dir) {
  RunDirectory rd = RunDirectory::open(dir);  // run.json and its config copy, checked
  LoadedRun run;
  run.config = *rd.config();
  run.trials = rd.read_trial_records(run.warnings);
  if (rd.has_summary()) run.summary = rd.read_summary();
  run.complete = run.summary && run.summary->complete;
  return run;
}

RunOutcome run_experiment(ExperimentConfig config, const RunOptions& opt, const std::atomic<bool>& stop,
                          std::ostream& log, collectives::MpiSession* session) {
  Inventory inv = build_inventory(Topology::load_live());
  cross_check_live(inv, kernels::query_device_runtime());
  Ranks ranks;
  ranks.session = session;
  ranks.multi = session && session->size() > 1;
  ranks.root = ranks.writer = !session || session->rank() == 0;
  if (opt.per_node) {
    if (!opt.resume_dir.empty()) throw InputError("--per-node: a per-node run is resumed node by node, without it");
    ranks.per_node = true;
    ranks.node = assign_node_roles(ranks.multi ? session : nullptr);
    ranks.writer = ranks.node.writer;
  }
  if (ranks.multi) config.seed = detail::broadcast_seed(*session, config.seed);
  if (ranks.multi && opt.resume_dir.empty()) detail::require_same_schedule(*session, config);
  detail::require_mpirun_for_collectives(config, ranks);
  RunState state = opt.resume_dir.empty() ? detail::start_run(config, inv, opt, ranks, log)
                                          : detail::resume_run(config, opt, ranks, log);
  detail::Progress progress(log, opt.progress, max_trials(config));
  bool complete = detail::run_rounds(config, inv, ranks, stop, state, progress);
  if (ranks.root) progress.done();
  return finish(config, ranks, state, complete);
}

}  // namespace placebench::harness
