// The experiment runner: rounds of interleaved trials, crash-safe results, sequential stopping.
#pragma once
#include <atomic>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/progress.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::collectives {
class MpiSession;
}

namespace placebench::harness {

struct RunOptions {
  std::string out_dir;              // exact run directory; "" = <config output>/<timestamp>-<host>
  std::string resume_dir;           // continue this run instead
  std::string command_line;
  ProgressSettings progress;        // progress on `log` (progress.h): tty, plain or none
  bool per_node = false;            // --per-node: each node writes <out or config output>/<node>/<timestamp>-<node>
};

struct RunOutcome {
  std::string dir;                  // this process's run directory ("" on a rank that writes none)
  std::vector<std::string> node_dirs;  // --per-node, on rank 0: every node's run directory, by node
  std::vector<ClassAnalysis> classes;
  bool complete = false;            // false: interrupted
};

// Runs (or resumes) the experiment. `stop` is raised by SIGINT/SIGTERM: the trial in flight is dropped,
// every finished trial is already on disk, summary.json is written with complete = false. Progress and
// warnings go to `log` (placebench run: stderr).
// Under mpirun (`session` non-null, several ranks) every rank runs the same schedule (rank 0's seed,
// broadcast), every rank takes part in each trial, rank 0 alone writes the run directory, and stop
// decisions (sequential rule, signals) are rank 0's, shared before the next trial.
// With options.per_node (per_node.h) one rank of each node (its writer) measures the node-local classes
// and writes that node's run directory, all nodes at once; collective classes run across all ranks and
// rank 0's record goes into every node's directory; a class stops when every node's rule stops it (a
// node that stopped earlier measures it no more). Rank 0 prints.
RunOutcome run_experiment(ExperimentConfig config, const RunOptions& options, const std::atomic<bool>& stop,
                          std::ostream& log, collectives::MpiSession* session = nullptr);

// A run directory read back, each file once through its reader: the config copy, the trials, and
// summary.json when there is one (complete: what it says; false without one).
struct LoadedRun {
  ExperimentConfig config;
  std::vector<TrialRecord> trials;
  std::vector<std::string> warnings;
  std::optional<RunSummary> summary;
  bool complete = false;
};
LoadedRun load_run(const std::string& dir);

}  // namespace placebench::harness
