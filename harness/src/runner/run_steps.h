// Internal to the experiment runner (experiment_runner.cpp): where this process stands in an mpirun job,
// what the round loop works from, and the steps run_experiment takes -- keeping the ranks in step
// (rank_sync.cpp), opening or resuming the run (run_open.cpp) and the round loop (round_loop.cpp).
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "placebench/harness/runner/experiment_runner.h"
#include "placebench/harness/runner/per_node.h"
#include "placebench/harness/runner/progress.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::collectives {
class MpiSession;
}

namespace placebench::harness::detail {

using SlotKey = std::tuple<std::string, int, std::string>;  // class, round, cell_key(arm, condition)

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

// ---- keeping the ranks in step (rank_sync.cpp) ----

// True on every rank when any rank says true (rank 0's stop decisions and signals reach everyone).
bool agree(collectives::MpiSession* session, bool mine);

// Rank 0's seed on every rank (as two 32-bit halves: a double carries 53 bits exactly).
std::uint64_t broadcast_seed(collectives::MpiSession& session, std::uint64_t seed);

// Under mpirun a rank that fails inside a trial would leave the others waiting in a collective:
// abort the job (after saying why) instead. Signals reach the ranks through `agree`, between trials.
nlohmann::json run_trial_or_abort(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                                  const TrialSlot& slot, collectives::MpiSession& session);

// Under mpirun, staging and pipeline trials measure the writing rank's node alone (rank 0's; with
// --per-node each node's writer, all nodes at once): the other ranks wait without spinning (so they
// neither share its CPUs nor its memory bandwidth) and get no record.
// What the ranks know of node-local trials' durations: the longest copy of any so far (seconds, agreed).
struct NodeLocalTiming {
  double longest_trial_s = 0;
};
nlohmann::json node_local_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                                const TrialSlot& slot, collectives::MpiSession& session, bool measure, bool per_node,
                                NodeLocalTiming& timing);

// What a resumed run needs on every rank: rank 0 reads the run directory and sends the config copy, the
// trials already recorded (class, round, arm) and their count; a rank count that differs from the
// run's is refused (collective figures depend on it). Every rank throws the same InputError on failure.
struct ResumeState {
  nlohmann::json config;
  std::vector<std::array<nlohmann::json, 3>> done;
  std::size_t recorded = 0;
};

ResumeState share_resume_state(collectives::MpiSession& session, RunDirectory* rd, const std::vector<TrialRecord>& trials,
                               const std::string& dir);

// Every rank runs the same classes, rounds and order (an AgreedInputError on every rank otherwise).
void require_same_schedule(collectives::MpiSession& session, const ExperimentConfig& config);

// ---- preflight, open or resume (run_open.cpp) ----

// Collective classes need mpirun with at least 2 ranks.
void require_mpirun_for_collectives(const ExperimentConfig& config, const Ranks& ranks);

// A new run: its classes checked, then (the root) run.json written in a new run directory.
RunState start_run(const ExperimentConfig& config, const Inventory& inv, const RunOptions& opt, const Ranks& ranks,
                   std::ostream& log);

// A resumed run: the root reads (and repairs) the directory -- other ranks may not share its filesystem --
// and, under mpirun, sends every rank the config and the slots already recorded. A failure on the root
// reaches the other ranks before they wait in a collective.
RunState resume_run(ExperimentConfig& config, const RunOptions& opt, const Ranks& ranks, std::ostream& log);

// ---- the round loop (round_loop.cpp) ----

// Every round until each class stopped or the last round ran; false when interrupted (a signal, or a
// trial stopped in flight).
bool run_rounds(const ExperimentConfig& config, const Inventory& inv, const Ranks& ranks, const std::atomic<bool>& stop,
                RunState& state, Progress& progress);

}  // namespace placebench::harness::detail
