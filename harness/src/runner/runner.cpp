// The round loop (see runner.h): for each round, each active class runs its arms in the round's order;
// every finished trial is appended (fsync) before the next starts; after each round from min_rounds on,
// a class stops when every arm's sequential rule says so.
#include "placebench/harness/runner/runner.h"

#include <array>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <set>
#include <tuple>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/runner/schedule.h"
#include "placebench/harness/runner/trial.h"
#include "placebench/harness/workloads/staging.h"
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

// Under mpirun, staging and pipeline trials measure rank 0's node alone: the other ranks wait without
// spinning (so they neither share its CPUs nor its memory bandwidth) and get no record.
nlohmann::json node_local_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                                const TrialSlot& slot, collectives::MpiSession& session) {
  nlohmann::json t = session.rank() == 0 ? run_trial_or_abort(inv, config, cls, slot, session) : nlohmann::json::object();
  if (!session.idle_barrier(kNodeLocalTrialDeadline))
    abort_job(session, fmt::format("rank {} waited {} min for rank 0 to finish trial {}/{} round {}; rank 0 is stuck",
                                   session.rank(), kNodeLocalTrialDeadline.count(), cls.name, arm_name(slot.arm), slot.round));
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

ResumeState share_resume_state(collectives::MpiSession& session, RunDirectory* rd, const std::vector<nlohmann::json>& trials,
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
      for (const auto& t : trials) msg["done"].push_back({t.at("class"), t.at("round"), t.at("arm")});
    }
  }
  msg = nlohmann::json::parse(session.broadcast_string(session.rank() == 0 ? msg.dump() : "", 0));
  if (msg.contains("error")) throw AgreedInputError(msg["error"].get<std::string>());
  ResumeState s{msg["config"], {}, msg["recorded"].get<std::size_t>()};
  for (const auto& d : msg["done"]) s.done.push_back({d[0], d[1], d[2]});
  return s;
}

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
  if (rd.has_summary()) run.complete = rd.read_summary().complete;
  return run;
}

RunOutcome run_experiment(ExperimentConfig config, const RunOptions& opt, const std::atomic<bool>& stop,
                          collectives::MpiSession* session) {
  Inventory inv = build_inventory(Topology::load_live());
  cross_check_live(inv, kernels::query_device_runtime());
  bool multi = session && session->size() > 1;
  bool root = !session || session->rank() == 0;
  if (multi) config.seed = broadcast_seed(*session, config.seed);
  for (const auto& cls : config.classes)
    if (cls.workload.type == "collective" && !multi)
      throw InputError(config.source + ": class " + cls.name + ": collective workloads run under mpirun with at least 2 "
                       "ranks (mpirun -np N placebench run --config ...)");
  std::vector<nlohmann::json> trials;
  std::optional<RunDirectory> rd;
  std::set<SlotKey> done;
  std::size_t recorded = 0;
  if (!opt.resume_dir.empty()) {
    // Rank 0 alone reads (and repairs) the directory: other ranks may not share its filesystem. A
    // failure there must reach the other ranks before they wait in a collective.
    std::string error;
    if (root) {
      try {
        rd = RunDirectory::open(opt.resume_dir);
        config = config_from_json(rd->run().at("config"));
        std::vector<std::string> warnings;
        trials = rd->read_trials(warnings, /*repair=*/true);
        for (const auto& w : warnings) std::cerr << "placebench run: warning: " << w << "\n";
      } catch (const std::exception& e) {
        if (!multi) throw;
        error = e.what();
      }
    }
    if (multi) {
      if (agree(session, !error.empty())) {
        std::string why = session->broadcast_string(error, 0);
        throw AgreedInputError(why.empty() ? "--resume " + opt.resume_dir + ": rank 0 could not open the run" : why);
      }
      ResumeState s = share_resume_state(*session, rd ? &*rd : nullptr, trials, opt.resume_dir);
      if (!root) config = config_from_json(s.config);
      for (const auto& d : s.done) done.insert({d[0].get<std::string>(), d[1].get<int>(), d[2].get<std::string>()});
      recorded = s.recorded;
    }
  } else {
    // Plan every class now, so a class this node cannot run fails before anything is measured.
    for (const auto& cls : config.classes) {
      try {
        plan_arms(inv, cls.plan_request(cls.arms()));
        if (cls.workload.type == "staging") {
          check_staging_memory(cls.workload.bytes, cls.workload.direction, "workload.bytes");
          if (cls.workload.backend == "cuda") {
            kernels::DeviceRuntime rt = kernels::query_device_runtime();
            if (!rt.usable())
              throw InputError("workload.backend cuda: no usable CUDA device (" + rt.status + "); use backend auto or host");
          }
        }
        check_pipeline_class(inv, config, cls);
      } catch (const InputError& e) {
        throw InputError(config.source + ": class " + cls.name + ": " + e.what());
      }
    }
    if (root) {
      nlohmann::json context = detail::make_run_context(config, inv, opt.command_line);
      if (session) context["mpi"] = {{"ranks", session->size()}};
      for (const auto& w : context["system"].value("warnings", nlohmann::json::array()))
        std::cerr << "placebench run: warning: " << w.get<std::string>() << "\n";
      rd = RunDirectory::create(config.output_dir, opt.out_dir, inv.host, context);
    }
  }
  for (const auto& t : trials) done.insert({t.at("class"), t.at("round").get<int>(), t.at("arm")});
  if (root) recorded = trials.size();
  std::set<std::string> stopped;
  Progress progress(opt.tty_progress, static_cast<int>(config.max_rounds * [&] {
                      std::size_t n = 0;
                      for (const auto& c : config.classes) n += c.arms().size();
                      return n;
                    }()));
  int trial_count = static_cast<int>(recorded);
  bool interrupted = false;
  for (int round = 0; round < config.max_rounds && !interrupted && stopped.size() < config.classes.size(); ++round) {
    for (std::size_t ci = 0; ci < config.classes.size() && !interrupted; ++ci) {
      const ClassConfig& cls = config.classes[ci];
      if (stopped.count(cls.name)) continue;
      std::vector<Arm> order = round_order(cls.arms(), config.order, config.seed, ci, round);
      for (std::size_t pos = 0; pos < order.size(); ++pos) {
        TrialSlot slot{cls.name, ci, order[pos], round, static_cast<int>(pos)};
        if (done.count({cls.name, round, arm_name(slot.arm)})) continue;
        if (agree(session, stop.load())) {
          interrupted = true;
          break;
        }
        if (root) progress.trial(slot, config.max_rounds, trial_count);
        nlohmann::json t = !multi                                   ? run_trial(inv, config, cls, slot, &stop, session)
                           : cls.workload.type == "collective" ? run_trial_or_abort(inv, config, cls, slot, *session)
                                                               : node_local_trial(inv, config, cls, slot, *session);
        if (agree(session, t.is_null())) {
          interrupted = true;
          break;
        }
        if (root) {
          rd->append_trial(t);
          trials.push_back(std::move(t));
        }
        ++trial_count;
      }
    }
    if (interrupted) break;
    std::vector<ClassAnalysis> analysis = root ? analyze_run(config, trials) : std::vector<ClassAnalysis>{};
    for (std::size_t ci = 0; ci < config.classes.size(); ++ci) {
      bool stop_class = root && analysis[ci].stop;
      if (agree(session, stop_class)) stopped.insert(config.classes[ci].name);  // rank 0 decides
    }
  }
  if (root) progress.done();
  if (!root) return RunOutcome{"", {}, !interrupted};
  RunOutcome out{rd->path(), analyze_run(config, trials), !interrupted};
  rd->write_summary(RunSummary{out.classes, out.complete, trials.size()});
  return out;
}

}  // namespace placebench::harness
