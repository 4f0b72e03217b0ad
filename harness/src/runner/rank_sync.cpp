// Keeping the ranks of an mpirun job in step: one seed, one schedule, one resume state, and trials that a
// failing or stuck rank cannot leave the others waiting on (see run_steps.h).
#include <fmt/format.h>

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
