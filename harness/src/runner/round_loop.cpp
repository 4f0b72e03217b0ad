// The round loop (see run_steps.h): for each round, each active class runs its arms in the round's order;
// every finished trial is appended, fsync'ed, before the next starts; after each round a class stops when
// every arm's sequential rule says so.
#include <fmt/format.h>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/schedule.h"
#include "run_steps.h"

namespace placebench::harness::detail {

namespace {

class RoundLoop {
 public:
  RoundLoop(const ExperimentConfig& config, const Inventory& inv, const Ranks& ranks, const std::atomic<bool>& stop,
            RunState& state, Progress& progress)
      : config_(config), inv_(inv), ranks_(ranks), stop_(stop), state_(state), progress_(progress),
        trial_count_(static_cast<int>(state.recorded)) {}

  // Every round until each class stopped or the last round ran; false when interrupted (a signal, or a
  // trial stopped in flight).
  bool run() {
    for (int round = 0; round < config_.max_rounds && stopped_.size() < config_.classes.size(); ++round) {
      for (std::size_t ci = 0; ci < config_.classes.size(); ++ci)
        if (!stopped_.count(config_.classes[ci].name) && !run_class_round(ci, round)) return false;
      stop_decided_classes();
    }
    return true;
  }

 private:
  // The class's cells (arms, under each condition) in this round's order, each slot not yet recorded;
  // false when interrupted.
  bool run_class_round(std::size_t ci, int round) {
    const ClassConfig& cls = config_.classes[ci];
    std::vector<Cell> order = round_cells(cls.arms(), cls.conditions.size(), config_.order, config_.seed, ci, round);
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      const std::string condition = cls.conditions.empty() ? "" : cls.conditions[order[pos].condition].name;
      TrialSlot slot{cls.name, ci, order[pos].arm, round, static_cast<int>(pos), condition};
      if (state_.done.count({cls.name, round, cell_key(arm_name(slot.arm), condition)})) continue;
      if (agree(ranks_.session, stop_.load())) return false;
      if (ranks_.root) progress_.trial(slot, config_.max_rounds, trial_count_);
      nlohmann::json t = run_one(cls, slot);
      if (agree(ranks_.session, t.is_null())) return false;
      if (ranks_.per_node && cls.workload.type == "collective") t = shared_record(std::move(t));
      if (ranks_.writer && !t.empty()) record(std::move(t));
      ++trial_count_;
      if (ranks_.root) progress_.trial_finished(trial_count_);
    }
    return true;
  }

  nlohmann::json run_one(const ClassConfig& cls, const TrialSlot& slot) {
    if (!ranks_.multi) return run_trial(inv_, config_, cls, slot, &stop_, ranks_.session);
    if (cls.workload.type == "collective") return run_trial_or_abort(inv_, config_, cls, slot, *ranks_.session);
    bool measure = ranks_.writer && !node_stopped_.count(cls.name);
    return node_local_trial(inv_, config_, cls, slot, *ranks_.session, measure, ranks_.per_node, node_local_timing_);
  }

  // --per-node: rank 0's record of a collective trial, for every node's writer.
  nlohmann::json shared_record(nlohmann::json t) {
    return nlohmann::json::parse(ranks_.session->broadcast_string(ranks_.root ? t.dump() : "", 0));
  }

  // Checked as its readers will read it, then appended (fsync) before the next trial starts: a line the
  // readers would refuse is never written (it would make the whole directory unreadable).
  void record(nlohmann::json line) {
    std::string place = fmt::format("{}/trials.jsonl:{}", state_.dir->path(), state_.trials.size() + 1);
    TrialRecord r;
    try {
      r = trial_record_from_json(std::move(line), state_.dir->config(), place);
    } catch (const InputError& e) {
      throw std::runtime_error(std::string("a measured trial fails its own reader's check, not recorded: ") + e.what());
    }
    state_.dir->append_trial(r.line);
    state_.trials.push_back(std::move(r));
  }

  // After each round, the classes whose sequential rule stops them (rank 0 decides, every rank agrees).
  // With --per-node each writer decides for its node, and a class stops for the job once every node's
  // rule stopped it (a node that stopped it earlier measures it no more: node_stopped_).
  void stop_decided_classes() {
    std::vector<ClassAnalysis> analysis =
        ranks_.writer ? analyze_run(config_, state_.trials) : std::vector<ClassAnalysis>{};
    for (std::size_t ci = 0; ci < config_.classes.size(); ++ci) {
      const std::string& name = config_.classes[ci].name;
      if (!ranks_.per_node) {
        if (agree(ranks_.session, ranks_.root && analysis[ci].stop)) stopped_.insert(name);
        continue;
      }
      bool mine = !ranks_.writer || node_stopped_.count(name) || analysis[ci].stop;
      if (ranks_.writer && mine) node_stopped_.insert(name);
      if (!agree(ranks_.session, !mine)) stopped_.insert(name);
    }
  }

  const ExperimentConfig& config_;
  const Inventory& inv_;
  const Ranks& ranks_;
  const std::atomic<bool>& stop_;
  RunState& state_;
  Progress& progress_;
  int trial_count_;
  std::set<std::string> stopped_;       // classes no rank runs any more
  std::set<std::string> node_stopped_;  // --per-node: classes this node's rule stopped
  NodeLocalTiming node_local_timing_;   // under mpirun: the bound of the wait at the end of a node-local trial
};

}  // namespace

bool run_rounds(const ExperimentConfig& config, const Inventory& inv, const Ranks& ranks, const std::atomic<bool>& stop,
                RunState& state, Progress& progress) {
  return RoundLoop(config, inv, ranks, stop, state, progress).run();
}

}  // namespace placebench::harness::detail
