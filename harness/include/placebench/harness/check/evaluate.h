// The comparison of a run against a reference file: plain results, no printing (printers.h renders them).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/check/node_check_summary.h"
#include "placebench/harness/check/reference.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::harness::check {

// What a run shows: its summary.json read by its one reader (or the same recomputed from trials.jsonl) and
// the trials; or what a GPU node check shows (node_check: its summary.json, no trials).
struct RunEvidence {
  std::string dir;
  std::optional<RunSummary> summary;  // a run's (nullopt for a node check)
  std::vector<TrialRecord> trials;
  std::vector<std::string> warnings;  // e.g. a truncated last line of trials.jsonl
  bool node_check = false;             // a GPU node check's summary.json (node_summary; no summary, no trials)
  NodeCheckSummary node_summary;
};

struct CheckResult {
  std::string name;       // the test case
  std::string kind;       // "run", "reference", "expectation" or "node"
  std::string class_name; // "" for run-level checks
  bool passed = false;
  std::string expected;   // in words, with numbers and units
  std::string actual;
  std::string message;    // why it failed ("" when passed)
  std::string where;      // file:line of the reference entry
  bool unknown = false;   // cannot tell (e.g. too little history): neither passed nor failed; the message says what
                          // would settle it
};

struct CheckReport {
  std::string run_dir, reference_path;
  std::vector<CheckResult> checks;
  int failures() const;  // checks that failed (unknowns not counted)
  int unknowns() const;
  bool passed() const { return failures() == 0 && unknowns() == 0; }  // an unknown never passes
  // "pass", "FAIL" or "unknown" for a check; the verdict line's word: FAIL, else UNKNOWN, else PASS.
  static const char* result_word(const CheckResult& c) { return c.passed ? "pass" : c.unknown ? "unknown" : "FAIL"; }
  const char* verdict() const { return failures() > 0 ? "FAIL" : unknowns() > 0 ? "UNKNOWN" : "PASS"; }
};

// Reads DIR (run.json and trials.jsonl through the runner's loader, which checks the schema version and
// every line; summary.json when present, else recomputed). Throws InputError for a directory that is not
// a run.
RunEvidence load_run_evidence(const std::string& dir);

CheckReport evaluate_checks(const ReferenceFile& reference, const RunEvidence& run);

// node_checks.cpp: DIR/summary.json (or DIR itself, a file) when it is a GPU node check's summary
// (kind "gpu-node-check"), else nullopt (DIR is then read as a run).
std::optional<RunEvidence> load_node_check_evidence(const std::string& dir);
// Appends the node_checks' results (one per GPU for per-GPU figures); InputError when the reference
// has none.
void evaluate_node_checks(const ReferenceFile& reference, const RunEvidence& run, CheckReport& report);

}  // namespace placebench::harness::check
