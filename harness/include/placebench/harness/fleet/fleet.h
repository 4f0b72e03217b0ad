// The fleet view (`placebench fleet DIR...`, docs/fleet.md): every node's run against its peers.
//   - nodes: one run directory per host (the newest complete one when a folder holds several);
//   - metrics: per class, arm and GPU, each node's class statistic over rounds (median, CI from order
//     statistics: the run's own summary) against the leave-one-out fleet median (the median of the other
//     nodes, so a slow node cannot pull its own reference), as a ratio with a CI;
//   - suspects: a node slower than its peers beyond the tolerance with its whole CI beyond it, a topology
//     that differs from the fleet's (GPU->NUMA, NIC->NUMA, CPU and NUMA counts), a result its peers have
//     and it lacks, an unreadable run, a failed reference check; ranked, each with its reasons.
// Plain data: fleet_load.cpp reads, fleet_analyze.cpp judges, the fleet_*.cpp printers render. Same
// inputs, same report: every list is sorted, nothing is random.
#pragma once
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/check/reference.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/stats/quantile.h"

namespace placebench::harness::fleet {

inline constexpr int kFleetSchemaVersion = 1;

// What identical nodes share, from run.json's topology (placebench topo --json), each as one string so
// nodes compare field by field ("0:0,1:1" = GPU 0 on NUMA node 0, GPU 1 on node 1).
struct TopologyPrint {
  std::vector<std::pair<std::string, std::string>> fields;  // (name, value) in a fixed order
};

// One node: its run, read through the run directory's readers.
struct NodeRun {
  std::string host;
  std::string dir;              // the run directory used
  std::string start_time;       // run.json's start_time ("" when absent; an RFC 3339 time when present)
  std::optional<double> start_epoch_s;  // start_time in Unix seconds, for choosing the newest run
  double duration_s = 0;        // sum of the trials' duration_s
  bool complete = false;
  std::vector<ClassAnalysis> classes;  // summary.json's (or recomputed from trials.jsonl)
  std::vector<std::string> gpu_of_class;  // per class: the GPU label ("0", "1", ... or "none")
  TopologyPrint topology;
  nlohmann::json measured;      // what must agree across the fleet: the experiment's name, steps and classes
  std::vector<std::string> notes;     // how it was chosen, warnings of its readers
  std::optional<check::RunEvidence> evidence;  // kept for --reference checks
  // Collective trials that recorded who set the pace (summary.pace_setter), and per host how many of
  // them named a rank of that host (summary.pace_setter_host): a host that sets the pace often is a suspect.
  int pace_trials = 0;
  std::map<std::string, int> pace_setter_hosts;
};

// A run directory that could not be read: listed, and its host (when known) is a suspect.
struct SkippedRun {
  std::string dir, host, reason;
};

struct FleetInput {
  std::vector<NodeRun> nodes;       // sorted by host
  std::vector<SkippedRun> skipped;  // sorted by dir
};

// Reads every DIR: a run directory (holds run.json), or a folder of them, or a folder of host folders of
// them (<host>/<run>). Several runs of one host: the newest complete one (start_time, then name), with a
// note. A DIR that is missing or holds no run is an InputError (exit 2); a run that cannot be read is
// skipped (SkippedRun) with its reason. `keep_evidence` keeps each run's trials for --reference.
FleetInput load_fleet(const std::vector<std::string>& dirs, bool keep_evidence = false);

// The summary statistic of one node for one (class, arm, GPU) against its peers.
struct NodeMetric {
  std::string host;
  double value = 0, ci_lo = 0, ci_hi = 0;  // the node's class statistic over rounds and its CI
  double ci_confidence = 0;                 // the coverage that CI reached
  int rounds = 0;
  std::optional<double> fleet_median;       // of the other nodes (leave-one-out); none without peers
  std::optional<double> ratio, ratio_lo, ratio_hi;  // value / fleet_median, and the CI over the same
  std::optional<double> slowdown_pct, slowdown_lo_pct, slowdown_hi_pct;  // in step time (throughput inverted)
  std::string status = "no peers";          // ok | slower | faster | no peers
};

struct MetricRow {
  std::string class_name, arm, gpu, statistic, unit;  // unit: ns or steps/s
  std::vector<NodeMetric> nodes;                       // sorted by host
  std::vector<std::string> missing;                    // hosts without this result
};

struct TopologyField {
  std::string name, fleet_value;   // fleet_value: the majority's ("" when no value holds a majority)
  int holders = 0;                 // nodes with the fleet value
  std::vector<std::pair<std::string, std::string>> mismatches;  // (host, its value)
};

struct Suspect {
  std::string host;
  double severity_pct = 0;           // the largest proven slowdown (0 for other reasons)
  std::vector<std::string> reasons;
};

struct NodeVerdict {
  std::string host;
  bool suspect = false;
  std::vector<std::string> reasons;
  check::CheckReport checks;         // --reference results (empty without one)
};

struct FleetOptions {
  double tolerance_pct = 10;         // a node within +-tolerance of its peers is ok
  // --metrics: CLASS or CLASS/ARM selectors; only those rows are compared, and runs of different
  // experiments or configs are then allowed. Empty: every row, and the runs must measure the same thing.
  std::vector<std::string> metrics;
  std::optional<check::ReferenceFile> reference;  // each node also checked against it
};

// `fleet --history DB` ("changed since", filled by history/fleet_since.h): per node x class x arm x metric
// in the store, the node's latest stored figure against its own last stable segment before that run, and the
// last change point `history changes` finds in the series (the same detector, called, not copied).
struct ChangedSince {
  std::string host, class_name, arm, metric, unit;
  std::string status;                      // history changes': "changed", "no-change" or "too-short" (cannot tell)
  std::string run_key;                     // the node's latest stored run with this figure
  std::optional<std::string> run_start;    // its start_time (RFC 3339)
  double latest = 0;                       // its figure
  std::optional<double> level;             // the last stable segment's level before it; nullopt: cannot tell
  std::size_t segment_runs = 0;            // runs in that segment (the latest one not counted)
  std::optional<double> change_pct;        // latest / level - 1, in percent
  struct LastChange {
    std::string run_key;                   // the first run of the new level
    std::optional<std::string> start;
    std::optional<double> start_epoch_s;
    double change_pct = 0;                 // level after / level before - 1, in percent
    std::optional<std::string> attribution;  // the evidence that changed there ("gpu_driver 550.54.15 -> ...")
    bool fleet = false;                    // seen on most nodes at once
  };
  std::optional<LastChange> last_change;   // nullopt: none detected
};

struct FleetHistory {
  std::string db;
  std::vector<ChangedSince> series;  // sorted by host, class, arm, metric
};

// What the printers list of --history's series (the JSON has them all): those that moved beyond the
// tolerance from their stable level, or have a change point; and the counts of the summary line.
bool listed_as_changed(const ChangedSince& c, double tolerance_pct);
struct ChangedSinceCounts {
  std::size_t moved = 0, changed = 0, cannot_tell = 0;  // beyond the tolerance, with a change point, too short
};
ChangedSinceCounts count_changed_since(const FleetHistory& h, double tolerance_pct);

struct FleetReport {
  FleetOptions options;
  FleetInput input;
  std::vector<MetricRow> metrics;        // sorted by class, arm, GPU
  std::vector<TopologyField> topology;   // fields in TopologyPrint order
  std::vector<NodeVerdict> verdicts;     // per node, sorted by host
  std::vector<Suspect> suspects;         // ranked: severity, then number of reasons, then host
  std::vector<SkippedRun> unreadable;    // skipped runs of hosts with no readable run (suspects)
  std::vector<std::string> warnings;
  std::optional<FleetHistory> history;   // with --history DB only: every printer leaves it out otherwise
};

// Throws InputError (exit 2) when the nodes' runs measured different things (experiment name, steps,
// classes: fleet_config.cpp) and options.metrics is empty, or when a --metrics selector matches no row.
FleetReport analyze_fleet(FleetInput input, const FleetOptions& options);

// --- what a fleet must share (fleet_config.cpp) ---

// The part of a run's config copy that decides what is measured: name, steps, warmup_steps, contention,
// classes. rounds, seed, order, confidence, output and source may differ between nodes.
nlohmann::json measured_part(const nlohmann::json& config);
// The first place where two such parts differ, in words ("classes[0].workload.bytes: 4194304 against
// 8388608"); "" when they agree.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& where = "");
// Without --metrics: an InputError naming two nodes and their first difference when the nodes' measured
// parts differ (nodes without one, as in hand-made inputs, are not compared). With --metrics: an
// InputError for a selector that names no class (or arm) of any node.
void require_comparable(const std::vector<NodeRun>& nodes, const FleetOptions& options);
// Whether a row of class `cls`, arm `arm` is compared: every row without --metrics, else the rows a
// selector names (CLASS: its every arm; CLASS/ARM: that arm).
bool metric_selected(const std::vector<std::string>& metrics, const std::string& cls, const std::string& arm);

// --- the statistics, on plain numbers (fleet_stats.cpp; unit-tested) ---

// Median of `values` (sorted or not; the mean of the two middle values for an even count); NaN when empty.
using stats::median;
// For each i, the median of every value but values[i] (of an even number of others: the member of the
// middle pair nearer values[i]); nullopt for a lone value.
std::vector<std::optional<double>> leave_one_out_medians(const std::vector<double>& values);
// The node's ratio to its fleet median and the status: `slower` when the slowdown in step time (for a
// throughput, 1 / ratio) is beyond +tolerance with the CI's fast end beyond it too; `faster` likewise
// below -tolerance; else `ok`. Fills ratio*, slowdown* and status of `m` (m.fleet_median set).
void judge_against_fleet(NodeMetric& m, bool throughput, double tolerance_pct);

inline constexpr const char* kUnknownValue = "?";
// The topology print of run.json's topology, as its one reader gives it (inventory_read.h); with no
// topology, every field is "?".
TopologyPrint topology_print(const std::optional<Inventory>& topology);
// Per field, the value most of the nodes that know it hold (a strict plurality; a tie gives "" and names
// every such node) and the nodes that differ. A node whose value is "?" is neither counted nor named.
std::vector<TopologyField> compare_topologies(const std::vector<std::pair<std::string, TopologyPrint>>& prints);

// --- printers (each a pure function of the report) ---
nlohmann::json fleet_to_json(const FleetReport& report, const std::string& generated_at);
// The table: its reasons wrapped to 100 columns, or (`wide`, --wide) each on one line.
std::string render_fleet_table(const FleetReport& report, bool wide = false);
std::string render_fleet_junit(const FleetReport& report, const std::string& generated_at);
std::string render_fleet_html(const FleetReport& report, const std::string& generated_at);
std::string render_fleet_prometheus(const FleetReport& report);

}  // namespace placebench::harness::fleet
