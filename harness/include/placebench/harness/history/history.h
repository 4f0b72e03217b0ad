// The results store (`placebench history`, docs/history.md): one SQLite file that indexes run directories
// without replacing them (the run directory stays the record). Per run: its identity (a digest of run.json,
// so a run is one run whatever path it is added by), its node, start time and the node's evidence (versions,
// topology digest, NUMA nodes); per (run, class, arm, metric): the statistic, its CI over rounds, the verdict.
//   - read_stored_run reads a run directory: run.json and summary.json (each through its checked reader) when
//     trials.jsonl holds the summary's trials, else every trial line (check::load_run_evidence);
//   - Store opens (or creates) the file, refuses a damaged, foreign or newer one without touching it, adds
//     runs (each in its own savepoint; a batch per transaction) and answers the queries of list and show.
// Plain data; the printers (history_print.cpp) render it as a table or JSON.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace placebench::harness::history {

inline constexpr int kHistorySchemaVersion = 1;        // the store's PRAGMA user_version
inline constexpr std::int32_t kHistoryApplicationId = 0x50424853;  // "PBHS": PRAGMA application_id
inline constexpr int kHistoryJsonSchemaVersion = 1;    // of `history ... --json`

// What the node was when it ran, as run.json records it; nullopt where it records nothing (`unknown`).
struct NodeEvidence {
  std::optional<std::string> placebench_version, git_revision;
  std::optional<std::string> kernel;      // versions.kernel: uname's release (absent in older run.json)
  std::optional<std::string> gpu_driver;  // versions.gpu_driver: the NVIDIA kernel module's version, or none
  std::optional<std::string> cuda_driver, cuda_runtime, nccl, mpi, hwloc;  // run.json's versions block
  std::optional<std::string> topology_digest;  // of run.json's topology, host and source left out
  std::optional<std::int64_t> numa_nodes, packages, gpus;

  // One string per state of the node (equal strings: nothing above changed) and the same in words.
  std::string digest() const;
  std::string detail() const;
};

// One figure of one arm: the class statistic ("median", "p99", "throughput") or the ratio to the baseline
// ("ratio_pct"), with its CI over rounds and the arm's verdict.
struct StoredResult {
  std::string class_name, arm, metric, unit, role;
  std::optional<double> value, ci_lower, ci_upper;  // nullopt: the run has no such figure
  double ci_confidence = 0;
  std::int64_t rounds = 0;
  std::string verdict;
  std::optional<std::int64_t> decided_look;
  std::optional<double> holm_p;
  std::string aa_check;  // "" unless an A/A control
};

struct StoredRun {
  std::string key;   // identity: digest of run.json's content (not of its path)
  std::string node;  // run.json's host, else the directory's name
  std::string dir;   // where it was (first) added from, absolute
  std::optional<std::string> start_time;  // run.json's, RFC 3339
  std::optional<double> start_epoch_s;
  std::string added_at;  // when the store took it (UTC)
  bool complete = false;
  std::int64_t trials = 0;
  std::string config_name;
  NodeEvidence evidence;
  std::int64_t result_count = 0;     // rows in the store (list); results.size() once read
  std::vector<StoredResult> results;  // class, arm, metric order
};

// Reads one run directory into what the store holds: run.json and summary.json, both checked, when
// trials.jsonl holds as many lines as the summary counts trials (its lines are counted, not parsed); else
// run.json, every trial line and summary.json or the statistics recomputed (check::load_run_evidence).
// InputError for a directory that is not a complete-enough run (no trials, damage, a node check).
StoredRun read_stored_run(const std::string& dir);

// Every run directory under each DIR (a run directory, a folder of them, or of <node>/<run>), as `fleet`
// walks them; the same directory once. InputError for a DIR that is missing or holds no run.
std::vector<std::string> find_run_dirs(const std::vector<std::string>& dirs);

// Which runs and rows a query takes (each empty or nullopt: any).
struct HistoryFilter {
  std::string node, class_name, arm, metric;
  std::string run;  // a run key, or a prefix of one
  std::optional<double> since_epoch_s, until_epoch_s;  // start time in [since, until)
};

// --since/--until: YYYY-MM-DD (00:00 UTC) or an RFC 3339 time; InputError naming `option` otherwise.
double parse_history_date(const std::string& option, const std::string& text);

enum class AddStatus { kAdded, kAlready, kUpdated };
struct AddOutcome {
  AddStatus status = AddStatus::kAdded;
  std::string key, node, dir;
  std::string stored_dir;  // kAlready: where the store's copy was added from
};

struct StoreOptions {
  double busy_timeout_s = 60;  // the longest wait for another writer (a deadline, never infinite)
};

class Store {
 public:
  // Opens `path` to add runs, creating it (WAL, application_id, user_version) when it does not exist or is
  // empty. A file that is not SQLite, is damaged, belongs to another application or has a newer schema is an
  // InputError (one line: the file and the fix) and is not modified.
  static Store open_for_writing(const std::string& path, const StoreOptions& options = {});
  // Opens an existing store read-only (list, show); the same refusals; a missing file is an InputError.
  static Store open_for_reading(const std::string& path, const StoreOptions& options = {});
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const;
  // Adds the runs in one transaction, each in its own savepoint: a run already there (same key) is left as
  // it is (kAlready), unless the store holds fewer of its trials (an interrupted run since resumed): then
  // it is replaced (kUpdated). Several processes may add at once: they take turns (busy timeout).
  std::vector<AddOutcome> add(const std::vector<StoredRun>& runs);
  // Runs matching the filter (class, arm, metric: runs with such a row), by start time, node, key; without
  // their results (result_count set).
  std::vector<StoredRun> list(const HistoryFilter& filter) const;
  // The same runs with their matching results.
  std::vector<StoredRun> show(const HistoryFilter& filter) const;
  // The nodes of the runs matching the filter, each once, in order.
  std::vector<std::string> nodes(const HistoryFilter& filter) const;
  // The peers of a run (`check --against-history`): each node other than `node`, its `per_node` most recent
  // complete runs of `config_name` that started no later than `until_epoch_s` (a run without a start time
  // is the oldest; nullopt: any), newest first within a node, with their results. One indexed query: the
  // cost follows the number of nodes, not the history's length.
  std::vector<StoredRun> latest_of_other_nodes(const std::string& config_name, const std::string& node,
                                               std::optional<double> until_epoch_s, std::size_t per_node) const;
  std::int64_t run_count() const;

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `history add`: each run directory read (read_stored_run, `threads` directories at once; 0: one per
// core) and added in the order given, `batch` runs per transaction (the reading outside it, so another
// writer waits only for the inserts). A directory that cannot be read is not added and is listed with the
// reason; the others are.
struct AddReport {
  std::vector<AddOutcome> outcomes;
  std::vector<std::pair<std::string, std::string>> not_added;  // (dir, reason)
};
AddReport add_run_dirs(Store& store, const std::vector<std::string>& run_dirs, std::size_t batch = 256,
                       std::size_t threads = 0);

// Printers (history_print.cpp): tables that fit 100 columns, and the JSON of each command.
std::string render_add_table(const AddReport& report);
nlohmann::json add_to_json(const std::string& db, const AddReport& report);
std::string render_list_table(const std::vector<StoredRun>& runs);
std::string render_show_table(const std::vector<StoredRun>& runs);
nlohmann::json runs_to_json(const std::string& db, const std::vector<StoredRun>& runs, bool with_results);

}  // namespace placebench::harness::history
