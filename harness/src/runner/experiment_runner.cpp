// The experiment runner (see experiment_runner.h), in four steps: preflight (what must hold before anything
// is measured), open or resume the run directory, the round loop (for each round, each active class runs
// its arms in the round's order; every finished trial is appended, fsync'ed, before the next starts; after
// each round a class stops when every arm's sequential rule says so), and finish (summary.json).
#include "placebench/harness/runner/experiment_runner.h"

#include <array>
#include <chrono>
#include <fmt/format.h>
#include <set>
#include <tuple>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/per_node.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/runner/schedule.h"
#include "placebench/harness/runner/trial.h"
#include "placebench/harness/workloads/staging.h"
#include "placebench/kernels/device_runtime.h"
#include "run_json_context.h"

namespace placebench::harness {
namespace {

class Progress {
 public:
  Progress(std::ostream& log, bool tty, int total)
      : log_(log), tty_(tty), total_(total), start_(std::chrono::steady_clock::now()) {}
  void trial(const TrialSlot& s, int max_rounds, int done) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
    std::string line = fmt::format("placebench run: class {} round {}/{} arm {} (trial {}/{} at most, ETA <= {:.0f} s)",
                                   s.class_name, s.round + 1, max_rounds, arm_name(s.arm), done + 1, total_, eta);
    if (tty_)
      log_ << "\r\033[K" << line << std::flush;
    else
      log_ << line << "\n";
  }
  void done() {
    if (tty_) log_ << "\r\033[K" << std::flush;
  }

 private:
  std::ostream& log_;
  bool tty_;
  int total_;
  std::chrono::steady_clock::time_point start_;
};

using SlotKey = std::tuple<std::string, int, std::string>;  // class, round, arm

// True on every rank when any rank says true (rank 0's stop decisions and signals reach everyone).
bool agree(collectives::MpiSession* session, bool mine) {
  return session && session->size() > 1 ? session->agree_max(mine ? 1 : 0) != 0 : mine;
}

// Rank 0's seed on every rank (as two 32-bit halves: a double carries 53 bits exactly).
std::uint64_t broadcast_seed(collectives::MpiSession& session, std::uint64_t seed) {
  auto hi = static_cast<std::uint64_t>(session.broadcast(static_cast<double>(seed >> 32), 0));
  auto lo = static_cast<std::uint64_t>(session.broadcast(static_cast<double>(seed & 0xffffffffu), 0));
  return (hi << 32) | lo;
}

// Under mpirun a rank that fails inside a trial would leave the others waiting in a collective:
// abort the job (after saying why) instead. Signals reach the ranks through `agree`, between trials.
nlohmann::json run_trial_or_abort(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                                  const TrialSlot& slot, collectives::MpiSession& session) {
  try {
    return run_trial(inv, config, cls, slot, nullptr, &session);
  } catch (const std::exception& e) {
    abort_job(session, std::string("trial ") + cls.name + "/" + arm_name(slot.arm) + ": " + e.what());
  }
}

// The longest the other ranks wait for rank 0 to finish a node-local trial (staging, pipeline) before
// they abort the job: a trial is steps x step time, seconds to minutes; an hour means rank 0 is stuck.
constexpr std::chrono::minutes kNodeLocalTrialDeadline{60};

// Under mpirun, staging and pipeline trials measure the writing rank's node alone (rank 0's; with
// --per-node each node's writer, all nodes at once): the other ranks wait without spinning (so they
// neither share its CPUs nor its memory bandwidth) and get no record.
nlohmann::json node_local_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                                const TrialSlot& slot, collectives::MpiSession& session, bool measure, bool per_node) {
  nlohmann::json t = measure ? run_trial_or_abort(inv, config, cls, slot, session) : nlohmann::json::object();
  // The others wait (idle) for rank 0's whole trial; rank 0 comes last, so it waits only as long as any MPI
  // wait may make no progress (a peer frozen while rank 0 measured). With --per-node every writer may
  // still be measuring: each waits up to the trial deadline.
  if (session.rank() == 0 && !per_node) {
    auto stall = std::chrono::milliseconds(static_cast<long long>(session.stall_timeout_s() * 1000));
    if (!session.idle_barrier(stall))
      abort_job(session, fmt::format("rank 0: the other ranks did not reach the end of trial {}/{} round {} within {} s; a "
                                     "peer is stalled or frozen", cls.name, arm_name(slot.arm), slot.round,
                                     session.stall_timeout_s()));
  } else if (!session.idle_barrier(kNodeLocalTrialDeadline)) {
    abort_job(session, fmt::format("rank {} waited {} min for the other {} to finish trial {}/{} round {}; one is stuck",
                                   session.rank(), kNodeLocalTrialDeadline.count(), per_node ? "nodes" : "ranks (rank 0)",
                                   cls.name, arm_name(slot.arm), slot.round));
  }
  return t;
}

// What a resumed run needs on every rank: rank 0 reads the run directory and sends the config copy, the
// trials already recorded (class, round, arm) and their count; a rank count that differs from the
// run's is refused (collective figures depend on it). Every rank throws the same InputError on failure.
struct ResumeState {
  nlohmann::json config;
  std::vector<std::array<nlohmann::json, 3>> done;
  std::size_t recorded = 0;
};

ResumeState share_resume_state(collectives::MpiSession& session, RunDirectory* rd, const std::vector<TrialRecord>& trials,
                               const std::string& dir) {
  nlohmann::json msg;
  if (session.rank() == 0) {
    int ranks = rd->run().contains("mpi") ? rd->run()["mpi"].value("ranks", 1) : 1;
    if (ranks != session.size()) {
      msg["error"] = fmt::format("{}/run.json: the run was made with {} rank(s), this job has {}; resume it with "
                                 "mpirun -np {} (or without mpirun for 1)",
                                 dir, ranks, session.size(), ranks);
    } else {
      msg["config"] = rd->run().at("config");
      msg["recorded"] = trials.size();
      msg["done"] = nlohmann::json::array();
      for (const auto& t : trials) msg["done"].push_back({t.class_name, t.round, t.arm});
    }
  }
  msg = nlohmann::json::parse(session.broadcast_string(session.rank() == 0 ? msg.dump() : "", 0));
  if (msg.contains("error")) throw AgreedInputError(msg["error"].get<std::string>());
  ResumeState s{msg["config"], {}, msg["recorded"].get<std::size_t>()};
  for (const auto& d : msg["done"]) s.done.push_back({d[0], d[1], d[2]});
  return s;
}

// What every rank must share for the round loop to stay in step: the classes (name, workload type, arms),
// the rounds and the order. Under mpirun each rank reads its own config (with --per-node a node may add
// its own contention), so a node given another experiment is refused on every rank, not left waiting.
std::string schedule_signature(const ExperimentConfig& config) {
  std::string sig = fmt::format("rounds {}..{} order {}", config.min_rounds, config.max_rounds, static_cast<int>(config.order));
  for (const auto& c : config.classes) {
    sig += "; " + c.name + " (" + c.workload.type + ":";
    for (Arm a : c.arms()) sig += " " + arm_name(a);
    sig += ")";
  }
  return sig;
}

void require_same_schedule(collectives::MpiSession& session, const ExperimentConfig& config) {
  std::string mine = schedule_signature(config);
  std::vector<std::string> all = session.gather_strings(mine, 0);
  std::string error;
  for (std::size_t r = 1; r < all.size() && error.empty(); ++r)
    if (all[r] != all[0])
      error = fmt::format("{}: rank {} runs another experiment than rank 0 ({} vs {}); give every rank the same classes, "
                          "rounds and order", config.source, r, all[r], all[0]);
  error = session.broadcast_string(error, 0);
  if (!error.empty()) throw AgreedInputError(error);
}

// Where this process stands in the job: alone, or one rank of an mpirun job (rank 0, the root, writes;
// with --per-node each node's writer writes its node's directory).
struct Ranks {
  collectives::MpiSession* session = nullptr;
  bool multi = false;     // several ranks
  bool root = true;       // rank 0: progress, printing, stop decisions of a shared run
  bool writer = true;     // writes a run directory (the root; with --per-node, one rank per node)
  bool per_node = false;
  NodeRole node;          // with --per-node
};

// What the round loop works from and adds to.
struct RunState {
  std::optional<RunDirectory> dir;   // the root's
  std::vector<TrialRecord> trials;   // the root's: every trial recorded, in order
  std::set<SlotKey> done;            // every rank's: the slots recorded before this process started
  std::size_t recorded = 0;          // how many
};

// ---- preflight: what must hold before anything is measured ----

void require_mpirun_for_collectives(const ExperimentConfig& config, const Ranks& ranks) {
  for (const auto& cls : config.classes)
    if (cls.workload.type == "collective" && !ranks.multi)
      throw InputError(config.source + ": class " + cls.name + ": collective workloads run under mpirun with at least 2 "
                       "ranks (mpirun -np N placebench run --config ...)");
}

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

// ---- open or resume ----

// A new run: its classes checked, then (the root) run.json written in a new run directory.
RunState start_run(const ExperimentConfig& config, const Inventory& inv, const RunOptions& opt, const Ranks& ranks,
                   std::ostream& log) {
  check_classes_runnable(config, inv);
  RunState state;
  if (!ranks.writer) return state;
  nlohmann::json context = detail::make_run_context(config, inv, opt.command_line);
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
  for (const auto& t : state.trials) state.done.insert({t.class_name, t.round, t.arm});
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

// ---- the round loop ----

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
  // The class's arms in this round's order, each slot not yet recorded; false when interrupted.
  bool run_class_round(std::size_t ci, int round) {
    const ClassConfig& cls = config_.classes[ci];
    std::vector<Arm> order = round_order(cls.arms(), config_.order, config_.seed, ci, round);
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      TrialSlot slot{cls.name, ci, order[pos], round, static_cast<int>(pos)};
      if (state_.done.count({cls.name, round, arm_name(slot.arm)})) continue;
      if (agree(ranks_.session, stop_.load())) return false;
      if (ranks_.root) progress_.trial(slot, config_.max_rounds, trial_count_);
      nlohmann::json t = run_one(cls, slot);
      if (agree(ranks_.session, t.is_null())) return false;
      if (ranks_.per_node && cls.workload.type == "collective") t = shared_record(std::move(t));
      if (ranks_.writer && !t.empty()) record(std::move(t));
      ++trial_count_;
    }
    return true;
  }

  nlohmann::json run_one(const ClassConfig& cls, const TrialSlot& slot) {
    if (!ranks_.multi) return run_trial(inv_, config_, cls, slot, &stop_, ranks_.session);
    if (cls.workload.type == "collective") return run_trial_or_abort(inv_, config_, cls, slot, *ranks_.session);
    bool measure = ranks_.writer && !node_stopped_.count(cls.name);
    return node_local_trial(inv_, config_, cls, slot, *ranks_.session, measure, ranks_.per_node);
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
};

int max_trials(const ExperimentConfig& config) {
  std::size_t arms = 0;
  for (const auto& c : config.classes) arms += c.arms().size();
  return static_cast<int>(config.max_rounds * arms);
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
  if (ranks.multi) config.seed = broadcast_seed(*session, config.seed);
  if (ranks.multi && opt.resume_dir.empty()) require_same_schedule(*session, config);
  require_mpirun_for_collectives(config, ranks);
  RunState state = opt.resume_dir.empty() ? start_run(config, inv, opt, ranks, log) : resume_run(config, opt, ranks, log);
  Progress progress(log, opt.tty_progress, max_trials(config));
  bool complete = RoundLoop(config, inv, ranks, stop, state, progress).run();
  if (ranks.root) progress.done();
  return finish(config, ranks, state, complete);
}

}  // namespace placebench::harness
