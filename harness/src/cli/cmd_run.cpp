// `placebench run`: an experiment (configs/*.yaml; built-in configs/default.yaml without --config),
// progress on stderr, results in a run directory, the verdict table at the end.
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <tuple>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/history/history.h"
#include "placebench/harness/runner/default_config.h"
#include "placebench/harness/runner/experiment_runner.h"

namespace placebench::harness {
namespace {

// ---- signals: the one place they are handled ----
// The only process-wide state: that a stop signal came (a signal handler can do no more). SIGINT, SIGTERM,
// SIGHUP (the terminal closed) and SIGQUIT all stop a run the same way: the trial in flight ends, the
// summary is written with complete: false, and the exit status is kExitInterrupted whichever it was.
std::atomic<bool> g_stop_requested{false};
extern "C" void on_stop_signal(int) { g_stop_requested.store(true); }
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, for every stop signal (docs/cli.md)

void catch_stop_signals() {
  for (int sig : kStopSignals) std::signal(sig, on_stop_signal);
}

struct RunCliOptions {
  std::string config_file, out, resume, rounds, order, fail_on, progress, history;
  std::optional<std::uint64_t> seed;
  std::string command_line;
  bool per_node = false;
  bool quiet = false;
  bool wide = false;
};

// A seed for a run whose config and command line name none: each run its own schedule (recorded in
// run.json's config copy, so --resume and a rerun with --seed repeat it).
std::uint64_t fresh_seed() {
  std::random_device rd;
  std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return s & ((std::uint64_t{1} << 62) - 1);
}

// --rounds MIN:MAX: two whole numbers (digits only, the whole text) within experiment.rounds' own limits.
std::pair<int, int> parse_rounds(const std::string& text) {
  auto whole = [](const std::string& part) -> std::optional<int> {
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoi(part);
  };
  auto colon = text.find(':');
  std::optional<int> lo = colon == std::string::npos ? std::nullopt : whole(text.substr(0, colon));
  std::optional<int> hi = colon == std::string::npos ? std::nullopt : whole(text.substr(colon + 1));
  if (!lo || !hi) throw InputError("--rounds: '" + text + "' is not MIN:MAX, two whole numbers (e.g. 5:20)");
  using config_limits::kMaxRounds, config_limits::kMinRounds;
  if (*lo < kMinRounds || *hi < *lo || *hi > kMaxRounds)
    throw InputError(fmt::format("--rounds {}: need {} <= MIN <= MAX <= {} (as experiment.rounds)", text, kMinRounds, kMaxRounds));
  return {*lo, *hi};
}

void apply_overrides(ExperimentConfig& cfg, const RunCliOptions& o) {
  if (o.seed) cfg.seed = *o.seed;
  else if (!cfg.seed_given) cfg.seed = fresh_seed();
  cfg.seed_given = true;
  if (!o.order.empty()) cfg.order = o.order == "random" ? Order::kRandom : o.order == "abba" ? Order::kAbba : Order::kFixed;
  if (!o.rounds.empty()) std::tie(cfg.min_rounds, cfg.max_rounds) = parse_rounds(o.rounds);
}

bool under_mpirun() {
  const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!world) world = std::getenv("PMI_SIZE");
  return world && std::atoi(world) > 1;
}

// The verdict table (the one path of a command's table, json_output.h), then where the results are.
void print_outcome(const RunOutcome& outcome, bool wide) {
  print_table(render_analysis_table(outcome.classes, outcome.complete, wide));
  if (!outcome.node_dirs.empty()) {
    // --per-node: the table is this node's; every node's directory follows.
    std::cout << "Results (" << outcome.node_dirs.size() << " node" << (outcome.node_dirs.size() == 1 ? "" : "s")
              << (outcome.complete ? "" : ", interrupted") << "):\n";
    for (const auto& d : outcome.node_dirs) std::cout << "  " << d << "\n";
  } else {
    std::cout << "Results: " << outcome.dir << (outcome.complete ? "" : " (interrupted: continue with --resume " + outcome.dir + ")") << "\n";
  }
  std::cout.flush();
}

int exit_status(const RunOutcome& outcome, const std::string& fail_on) {
  if (!outcome.complete) return kExitInterrupted;
  if (fail_on.empty()) return kExitOk;
  for (const auto& c : outcome.classes)
    for (const auto& a : c.arms)
      if (a.verdict == fail_on) {
        std::cerr << "placebench run: class " << c.name << " arm " << a.arm << " is " << fail_on << " (--fail-on)\n";
        for (const auto& w : a.verdict_warnings) std::cerr << "placebench run: warning: " << a.arm << ": " << w << "\n";
        return kExitCheckFailed;
      }
  return kExitOk;
}

// --history DB: the store is opened (created when missing) before the run, so a refused file is exit 2 with
// nothing run; under mpirun it is opened by the ranks that wrote a run directory, at the end.
std::optional<history::Store> open_history(const std::string& db) {
  if (db.empty()) return std::nullopt;
  return history::Store::open_for_writing(db);
}

// The finished run added to the store. The run directory is only read: a failure to add leaves it whole, is
// said on stderr with the command that adds it later, and turns a status of 0 into 1 (3 and 130 stand).
int add_to_history(const RunOutcome& outcome, const std::string& db, std::optional<history::Store>& store, int status) {
  if (db.empty() || outcome.dir.empty()) return status;
  if (!outcome.complete) {
    std::cerr << "placebench run: not added to " << db << ": the run is interrupted; `placebench run --resume "
              << outcome.dir << " --history " << db << "` adds it when it completes\n";
    return status;
  }
  try {
    if (!store) store = history::Store::open_for_writing(db);
    history::AddReport r = history::add_run_dirs(*store, {outcome.dir});
    if (!r.not_added.empty()) throw InputError(r.not_added.front().second);
    std::cerr << "placebench run: " << (r.outcomes.front().status == history::AddStatus::kAlready ? "already in " : "added to ")
              << db << " (run " << r.outcomes.front().key << ")\n";
    return status;
  } catch (const std::exception& e) {
    std::cerr << "placebench run: not added to " << db << ": " << e.what() << "; the run directory " << outcome.dir
              << " is complete: add it with `placebench history add " << db << " " << outcome.dir << "`\n";
    return status == kExitOk ? kExitFailed : status;
  }
}

int run_run(const RunCliOptions& o) {
  if (!o.resume.empty() && (!o.config_file.empty() || o.seed || !o.rounds.empty() || !o.order.empty()))
    throw InputError("--resume continues a run with its own config, seed, rounds and order; drop the other options");
  if (o.per_node && !o.resume.empty())
    throw InputError("--per-node with --resume: resume one node's run on that node without --per-node (placebench run "
                     "--resume <out>/<node>/<run>), or start a new per-node run");
  ExperimentConfig cfg;
  if (o.resume.empty()) {
    cfg = o.config_file.empty() ? parse_experiment_config(default_config_yaml(), "configs/default.yaml (built in)")
                                : load_experiment_config(o.config_file);
    apply_overrides(cfg, o);
  }
  catch_stop_signals();
  RunOptions ro{o.out, o.resume, o.command_line, progress_settings(o.progress, o.quiet, isatty(STDERR_FILENO) != 0),
                o.per_node};
  std::optional<history::Store> store;
  if (!under_mpirun()) {
    store = open_history(o.history);
    RunOutcome outcome = run_experiment(std::move(cfg), ro, g_stop_requested, std::cerr);
    print_outcome(outcome, o.wide);
    return add_to_history(outcome, o.history, store, exit_status(outcome, o.fail_on));
  }
  // Under mpirun: every rank runs the schedule, rank 0 writes and prints. Anything that fails once
  // MPI has started aborts the job, so no rank is left waiting in a collective.
  if (!collectives::mpi_built()) throw InputError("placebench run under mpirun needs the MPI backend: rebuild with PLACEBENCH_ENABLE_MPI=ON");
  // Open MPI's mpirun turns SIGINT into SIGTERM to every rank and exits 1 itself; it forwards SIGUSR1
  // as it is, so `kill -USR1 <mpirun>` stops the run after the current trial with status 130.
  std::signal(SIGUSR1, on_stop_signal);
  collectives::MpiSession session(stall_timeout_s(""));
  if (session.rank() != 0) quiet_stderr_unless_rank0();
  RunOutcome outcome;
  try {
    outcome = run_experiment(std::move(cfg), ro, g_stop_requested, std::cerr, &session);
  } catch (const AgreedInputError& e) {
    if (session.rank() == 0) std::cerr << "placebench: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    abort_job(session, e.what());
  }
  if (session.rank() == 0) print_outcome(outcome, o.wide);
  if (o.per_node) {
    // Every node's writer checks --fail-on against its own verdicts; the job's status is the worst.
    int mine = outcome.dir.empty() ? (outcome.complete ? kExitOk : kExitInterrupted) : exit_status(outcome, o.fail_on);
    return session.agree_max(add_to_history(outcome, o.history, store, mine));  // 130 (interrupted: every node stopped together) > 3 > 1 > 0
  }
  return session.rank() == 0 ? add_to_history(outcome, o.history, store, exit_status(outcome, o.fail_on))
                             : (outcome.complete ? kExitOk : kExitInterrupted);
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& action, const std::string& command_line) {
  auto o = std::make_shared<RunCliOptions>();
  o->command_line = command_line;
  CLI::App* cmd = app.add_subcommand("run", "Run an experiment: interleaved randomized rounds, crash-safe results, verdicts");
  cmd->add_option("--config", o->config_file, "Experiment YAML (default: the built-in configs/default.yaml)")->type_name("FILE");
  cmd->add_option("--out", o->out, "Run directory (default: <experiment output>/<timestamp>-<host>/); with --per-node, the folder of <node>/<timestamp>-<node>/")->type_name("DIR");
  cmd->add_option("--seed", o->seed, "The schedule's seed (default: experiment.seed, else a fresh one per run; recorded in run.json)")
      ->type_name("S")
      ->transform(whole_number(0, config_limits::kMaxSeed));  // as experiment.seed
  cmd->add_option("--rounds", o->rounds, "Override the rounds as MIN:MAX")->type_name("MIN:MAX");
  cmd->add_option("--order", o->order, "Arm order within a round")
      ->check(CLI::IsMember({"random", "abba", "fixed"}))
      ->type_name("random|abba|fixed");
  cmd->add_flag("--per-node", o->per_node,
                "Each node writes its own run in <out>/<node>/ (one writer per node under mpirun/srun; see docs/fleet-runs.md)");
  cmd->add_option("--resume", o->resume, "Continue an interrupted run in DIR (its config, seed and schedule)")->type_name("DIR");
  cmd->add_option("--fail-on", o->fail_on, "Exit 3 when any arm gets this verdict (for cluster CI)")
      ->check(CLI::IsMember({"slower", "inconclusive", "faster", "equivalent"}))
      ->type_name("VERDICT");
  auto* progress = cmd->add_option("--progress", o->progress,
                                   "Progress on stderr: one updating line (tty), a line at the first trial, every 10 s "
                                   "and the end (plain), or none (default $PLACEBENCH_PROGRESS, else auto: tty on a "
                                   "terminal, else plain)")
                       ->check(CLI::IsMember({"auto", "tty", "plain", "none"}))
                       ->type_name("auto|tty|plain|none");
  cmd->add_flag("--quiet", o->quiet, "No progress: nothing on stderr but warnings and errors (--progress=none)")
      ->excludes(progress);
  cmd->add_flag("--wide", o->wide, "Every column of the verdict table (role, CI over rounds, ratio rounds), wider than 100");
  cmd->add_option("--history", o->history,
                  "Add the finished run to this history store (SQLite; created when missing; see placebench history)")
      ->type_name("DB");
  cmd->callback([o, &action] { action = [o] { return run_run(*o); }; });
}

}  // namespace placebench::harness
