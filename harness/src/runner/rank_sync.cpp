// Keeping the ranks of an mpirun job in step: one seed, one schedule, one resume state, and trials that a
// failing or stuck rank cannot leave the others waiting on (see run_steps.h).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/errors.h"
#include "run_steps.h"

namespace placebench::harness::detail {
namespace {

// The longest the other ranks wait for rank 0 to finish a node-local trial (staging, pipeline) before
// they abort the job: a trial is steps x step time, seconds to minutes; an hour means rank 0 is stuck.
constexpr std::chrono::minutes kNodeLocalTrialDeadline{60};

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

}  // namespace

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

namespace {

// How much longer than this rank's own trial (or the longest so far) another rank's copy of it may take
// before the waiting ranks call it stalled: nodes of one fleet differ by tens of percent, not by 4x.
constexpr double kPeerTrialAllowance = 4;

// How long a rank waits at the end of a node-local trial for the others: rank 0 of a shared run measured
// last, so only the stall timeout; any other rank waits for ranks that measure the same trial (its own
// node's writer, the other nodes' writers): the stall timeout plus 4x the longest trial it knows of (its
// own copy of this one, or the longest of earlier trials, agreed by every rank), and the hour-long trial
// deadline only before any trial was timed.
std::chrono::milliseconds node_local_wait(collectives::MpiSession& session, bool per_node, double own_s,
                                          const NodeLocalTiming& timing) {
  const double stall_s = session.stall_timeout_s();
  if (session.rank() == 0 && !per_node) return std::chrono::milliseconds(static_cast<long long>(stall_s * 1000));
  const double known_s = std::max(own_s, timing.longest_trial_s);
  if (!(known_s > 0)) return kNodeLocalTrialDeadline;
  const double wait_s = std::min(stall_s + kPeerTrialAllowance * known_s,
                                 std::chrono::duration<double>(kNodeLocalTrialDeadline).count());
  return std::chrono::milliseconds(static_cast<long long>(wait_s * 1000));
}

}  // namespace

// Under mpirun, staging and pipeline trials measure the writing rank's node alone (rank 0's; with
// --per-node each node's writer, all nodes at once): the other ranks wait without spinning (so they
// neither share its CPUs nor its memory bandwidth) and get no record. A rank frozen while the others
// wait (rank 0 included, and every writer under --per-node) ends the job within node_local_wait.
nlohmann::json node_local_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                                const TrialSlot& slot, collectives::MpiSession& session, bool measure, bool per_node,
                                NodeLocalTiming& timing) {
  const auto started = std::chrono::steady_clock::now();
  nlohmann::json t = measure ? run_trial_or_abort(inv, config, cls, slot, session) : nlohmann::json::object();
  const double own_s = measure ? std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() : 0;
  const std::chrono::milliseconds wait = node_local_wait(session, per_node, own_s, timing);
  if (!session.idle_barrier(wait)) {
    const double wait_s = static_cast<double>(wait.count()) / 1000;
    restore_stderr();  // a stall is said by every rank, as the watchdog says it (the other ranks' stderr is quiet)
    abort_job(session, fmt::format("rank {}: the other {} did not reach the end of trial {}/{} round {} within {:.3g} s; a "
                                   "peer is stalled or frozen", session.rank(), per_node ? "nodes" : "ranks", cls.name,
                                   arm_name(slot.arm), slot.round, wait_s));
  }
  // Every rank learns the longest copy of this trial: the bound of the next wait for a rank that does not
  // measure (an MPI_Allreduce under the watchdog, so a rank frozen here ends the job too).
  timing.longest_trial_s = std::max(timing.longest_trial_s, session.max(own_s));
  return t;
}

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
      for (const auto& t : trials) msg["done"].push_back({t.class_name, t.round, t.cell()});
    }
  }
  msg = nlohmann::json::parse(session.broadcast_string(session.rank() == 0 ? msg.dump() : "", 0));
  if (msg.contains("error")) throw AgreedInputError(msg["error"].get<std::string>());
  ResumeState s{msg["config"], {}, msg["recorded"].get<std::size_t>()};
  for (const auto& d : msg["done"]) s.done.push_back({d[0], d[1], d[2]});
  return s;
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

}  // namespace placebench::harness::detail
