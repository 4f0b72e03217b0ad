// Change points from the results store (`placebench history changes`, docs/history.md): each series (node x
// class x arm x metric: a statistic with its CI over rounds, or a compared arm's ratio_pct) in run order
// (start time, then run key), each point carrying the node's evidence, goes through
// stats::detect_change_points; each change is attributed to the evidence that changed at it and marked a
// fleet change when most nodes with the series changed the same way at once (stats::fleet_changes).
// Evidence a run does not record (NULL, `unknown`) takes the node's last known value, so it neither creates
// nor hides a change. A series shorter than the detector needs is `too-short` (it cannot tell), never stable.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/history/history.h"
#include "placebench/stats/change_points.h"

namespace placebench::harness::history {

inline constexpr int kChangesJsonSchemaVersion = 1;  // of `history changes --json` ("placebench-history-changes")

struct SeriesRunPoint {
  std::string run_key;
  std::optional<std::string> start;      // RFC 3339, as run.json records it
  std::optional<double> start_epoch_s;
  double value = 0, ci_low = 0, ci_high = 0;  // ci_low == ci_high == value when the run has no CI
  std::string evidence_detail;           // "name=value; ..." with unknowns filled from the node's last known
};

struct SeriesChange {
  stats::ChangePoint change;
  std::optional<std::string> attribution;  // what changed at it ("cuda_driver 12.4 -> 12.6"); nullopt: none recorded
  bool fleet = false;
};

// status: "too-short" (fewer than 2 x min_segment runs: cannot tell), "changed" or "no-change".
struct HistorySeries {
  std::string node, class_name, arm, metric, unit, status;
  std::vector<SeriesRunPoint> points;
  std::vector<SeriesChange> changes;
};

struct FleetChange {
  std::optional<std::string> start;  // the earliest start among the nodes' changes
  std::string class_name, arm, metric;
  std::vector<std::string> nodes;
};

struct ChangesReport {
  std::vector<HistorySeries> series;  // node, class, arm, metric order
  std::vector<FleetChange> fleet_changes;
  std::size_t min_runs = 0;  // the fewest runs a series needs for the detector (2 x min_segment)
  std::size_t change_count() const;
};

struct ChangesOptions {
  stats::ChangePointOptions detector;
  stats::FleetChangeOptions fleet;  // window in seconds of start time
};

// The runs (with their results, as Store::show returns them) into series; no detection.
std::vector<HistorySeries> build_series(const std::vector<StoredRun>& runs);
// Every series' change points, their attribution, and the fleet changes.
ChangesReport find_changes(const std::vector<StoredRun>& runs, const ChangesOptions& options = {});
// The store's, read node by node (one node's rows held at a time); each point's evidence_detail is
// released once its series is detected (empty in the report).
ChangesReport find_changes(const Store& store, const HistoryFilter& filter, const ChangesOptions& options = {});

// The points of a series as the detector takes them.
std::vector<stats::SeriesPoint> detector_points(const HistorySeries& series);

// Printers (changes_print.cpp): one row per change fitting 100 columns (`wide`: nothing clipped), a summary
// line, and the JSON ("kind": "placebench-history-changes").
std::string render_changes_table(const ChangesReport& report, bool wide);
nlohmann::json changes_to_json(const std::string& db, const ChangesReport& report);

}  // namespace placebench::harness::history
