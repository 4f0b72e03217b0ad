// The round loop (see runner.h): for each round, each active class runs its arms in the round's order;
// every finished trial is appended (fsync) before the next starts; after each round from min_rounds on,
// a class stops when every arm's sequential rule says so.
#include "placebench/harness/runner/runner.h"

#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <set>
#include <tuple>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/runner/schedule.h"
#include "placebench/harness/runner/trial.h"
#include "placebench/kernels/device_runtime.h"
#include "run_context.h"

namespace placebench::harness {
namespace {

class Progress {
 public:
  Progress(bool tty, int total) : tty_(tty), total_(total), start_(std::chrono::steady_clock::now()) {}
  void trial(const TrialSlot& s, int max_rounds, int done) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
    std::string line = fmt::format("placebench run: class {} round {}/{} arm {} (trial {}/{} at most, ETA <= {:.0f} s)",
                                   s.class_name, s.round + 1, max_rounds, arm_name(s.arm), done + 1, total_, eta);
    if (tty_)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << "\n";
  }
  void done() {
    if (tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool tty_;
  int total_;
  std::chrono::steady_clock::time_point start_;
};

using SlotKey = std::tuple<std::string, int, std::string>;  // class, round, arm

}  // namespace

LoadedRun load_run(const std::string& dir) {
  RunDirectory rd = RunDirectory::open(dir);
  LoadedRun run;
  try {
    run.config = config_from_json(rd.run().at("config"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(dir + "/run.json: the config copy is damaged (" + std::string(e.what()) + "); start a new run");
  }
  run.trials = rd.read_trials(run.warnings);
  if (rd.has_summary()) run.complete = rd.read_summary().value("complete", false);
  return run;
}

RunOutcome run_experiment(ExperimentConfig config, const RunOptions& opt, const std::atomic<bool>& stop) {
  Inventory inv = build_inventory(Topology::load_live());
  cross_check_live(inv, kernels::query_device_runtime());
  std::vector<nlohmann::json> trials;
  std::optional<RunDirectory> rd;
  if (!opt.resume_dir.empty()) {
    rd = RunDirectory::open(opt.resume_dir);
    config = config_from_json(rd->run().at("config"));
    std::vector<std::string> warnings;
    trials = rd->read_trials(warnings, /*repair=*/true);
    for (const auto& w : warnings) std::cerr << "placebench run: warning: " << w << "\n";
  } else {
    // Plan every class now, so a class this node cannot run fails before anything is measured.
    for (const auto& cls : config.classes) {
      PlanRequest req;
      req.arms = cls.arms();
      req.device = {cls.gpu, cls.device_numa};
      req.remote_node = cls.remote_node;
      req.cpus_per_worker = cls.cpus_per_worker;
      req.allow_degenerate = cls.allow_degenerate;
      req.workers = cls.workload.direction == Direction::kBidir ? 2 : 1;
      try {
        plan_arms(inv, req);
      } catch (const InputError& e) {
        throw InputError(config.source + ": class " + cls.name + ": " + e.what());
      }
    }
    nlohmann::json context = detail::make_run_context(config, inv, opt.command_line);
    for (const auto& w : context["system"].value("warnings", nlohmann::json::array()))
      std::cerr << "placebench run: warning: " << w.get<std::string>() << "\n";
    rd = RunDirectory::create(config.output_dir, opt.out_dir, inv.host, context);
  }
  std::set<SlotKey> done;
  for (const auto& t : trials) done.insert({t.at("class"), t.at("round").get<int>(), t.at("arm")});
  std::set<std::string> stopped;
  Progress progress(opt.tty_progress, static_cast<int>(config.max_rounds * [&] {
                      std::size_t n = 0;
                      for (const auto& c : config.classes) n += c.arms().size();
                      return n;
                    }()));
  int trial_count = static_cast<int>(trials.size());
  bool interrupted = false;
  for (int round = 0; round < config.max_rounds && !interrupted && stopped.size() < config.classes.size(); ++round) {
    for (std::size_t ci = 0; ci < config.classes.size() && !interrupted; ++ci) {
      const ClassConfig& cls = config.classes[ci];
      if (stopped.count(cls.name)) continue;
      std::vector<Arm> order = round_order(cls.arms(), config.order, config.seed, ci, round);
      for (std::size_t pos = 0; pos < order.size(); ++pos) {
        TrialSlot slot{cls.name, ci, order[pos], round, static_cast<int>(pos)};
        if (done.count({cls.name, round, arm_name(slot.arm)})) continue;
        if (stop.load()) {
          interrupted = true;
          break;
        }
        progress.trial(slot, config.max_rounds, trial_count);
        nlohmann::json t = run_trial(inv, config, cls, slot, &stop);
        if (t.is_null()) {
          interrupted = true;
          break;
        }
        rd->append_trial(t);
        trials.push_back(std::move(t));
        ++trial_count;
      }
    }
    if (interrupted) break;
    for (const auto& c : analyze_run(config, trials))
      if (c.stop && c.rounds_done >= config.min_rounds) stopped.insert(c.name);
  }
  progress.done();
  RunOutcome out{rd->path(), analyze_run(config, trials), !interrupted};
  rd->write_summary(analysis_to_json(out.classes, out.complete, trials.size()));
  return out;
}

}  // namespace placebench::harness
