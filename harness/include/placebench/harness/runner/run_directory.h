// A run directory: run.json (context, written first), trials.jsonl (one line per finished trial,
// appended and fsync'ed before the next trial starts) and summary.json (written at the end, atomically;
// rebuilt from trials.jsonl when missing). kill -9 loses at most the trial in flight.
//
// Reading checks every file once, where it is read: run.json and its config copy on open, each trial
// line in read_trials, summary.json in read_summary. Damage is an InputError (exit 2) of one line that
// names the file, the line or key, what is wrong and the fix; nothing downstream meets a value of the
// wrong type.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/errors.h"
#include "placebench/harness/results_json.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::harness {

inline constexpr int kResultsSchemaVersion = 2;

// A results file of a schema version this placebench does not read; `newer` when a later placebench wrote
// it (what it holds cannot be rebuilt here, so nothing replaces it).
struct SchemaVersionError : InputError {
  SchemaVersionError(const std::string& message, bool newer_version) : InputError(message), newer(newer_version) {}
  bool newer;
};

class RunDirectory {
 public:
  // Creates <base>/<YYYYmmdd-HHMMSS>-<host>/ (or `exact` when given) and writes run.json. Refuses, before
  // creating anything, a path that is not UTF-8 and an `exact` directory that already holds a run.
  static RunDirectory create(const std::string& base, const std::string& exact, const std::string& host,
                             const nlohmann::json& run);
  // Opens an existing run directory; throws InputError when run.json is missing, unreadable, of another
  // schema version, or its config copy is damaged (a key missing, of the wrong type or out of range).
  static RunDirectory open(const std::string& dir);

  const std::string& path() const { return path_; }
  const nlohmann::json& run() const { return run_; }
  // The config copy of run.json, checked (by open, and by create before anything is written).
  const std::optional<ExperimentConfig>& config() const { return config_; }

  void append_trial(const nlohmann::json& trial);
  // trials.jsonl through its one reader: every complete line, each checked and read into a TrialRecord: an
  // object with class, arm and round (of the run's config when known; each slot once), step_ns (numbers
  // > 0 and at most config_limits::kMaxStepNs), a summary holding the class's statistic, and flags, position
  // and placement when present. A last line that does not parse (a crash mid-write) is ignored with a warning
  // in `warnings`; with `repair`, it is also cut from the file so appends continue cleanly. A last line that
  // is a whole trial without its newline is kept (with `repair`, the newline is added). trials.jsonl missing, unreadable or not a file,
  // and any other damaged line, throw InputError naming the file and line.
  std::vector<TrialRecord> read_trial_records(std::vector<std::string>& warnings, bool repair = false) const;
  // The same lines as JSON (each record's `line`), for readers not yet on TrialRecord (analyze_run).
  std::vector<nlohmann::json> read_trials(std::vector<std::string>& warnings, bool repair = false) const;
  void write_summary(const RunSummary& summary) const;
  bool has_summary() const;
  // summary.json through its one typed reader (summary_from_json: schema version and every field
  // checked); throws InputError when it is damaged or of another schema version.
  RunSummary read_summary() const;

 private:
  std::string path_;
  nlohmann::json run_;
  std::optional<ExperimentConfig> config_;
};

// One trial line checked and read as read_trial_records reads each (without the check that no slot
// repeats); `place` names it in messages ("DIR/trials.jsonl:LINE"). Throws InputError for damage.
TrialRecord trial_record_from_json(nlohmann::json line, const std::optional<ExperimentConfig>& config = std::nullopt,
                                   const std::string& place = "trial");

}  // namespace placebench::harness
