// Change points in a node's history: where the level of one series (node x class x arm x metric, one point
// per run, in run order) changes, and whether a change coincides with a change of the node's evidence
// (driver, kernel, NUMA mode, placebench version) or is seen on most nodes at once (a fleet change).
// Pure computation on plain data; the store (harness `history`) builds the series and prints the results.
// The method, its false-alarm rate and the comparison with the alternatives: docs/statistics.md.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace placebench::stats {

// One run's figure for the series: its statistic and the CI of that statistic over the run's rounds
// (ci_lower <= value <= ci_upper; equal bounds when the run had no CI). `evidence` is an opaque digest of
// what the node was when it ran (equal strings = nothing changed); `evidence_detail` says what it holds,
// for the attribution's message ("driver 550.54 -> 560.28"). evidence_detail is a list of items separated by
// ';', ',' or newlines, each "name value", "name=value" or "name: value" (e.g. "driver 550.54; kernel 6.8");
// the message names the items whose value differs, or quotes both details whole when they do not parse so.
struct SeriesPoint {
  double value = 0.0;
  double ci_lower = 0.0;
  double ci_upper = 0.0;
  std::string evidence;
  std::string evidence_detail;
};

struct ChangePointOptions {
  double alpha = 0.002;             // per-scan false-alarm level of binary segmentation's test
  double min_relative_change = 0.0; // a change smaller than this (fraction of the level) is not reported
  std::size_t min_segment = 3;      // fewest runs on each side of a change
  std::size_t permutations = 999;   // for permutation-based methods; results are deterministic given seed
  unsigned long long seed = 1;
  // Added with the detector (docs/statistics.md, "Change points"):
  double clip = 3.0;                // robust scores are clipped at +-clip noise scales (Huber-type psi)
  double run_ci_confidence = 0.95;  // the confidence of each run's [ci_lower, ci_upper]
  std::size_t evidence_tolerance = 2;  // an evidence change within +-this many runs of index is attributed
  // The recent end (docs/statistics.md, "Change points", the recent stage): the last k = min_segment ..
  // recent_runs runs against the recent_window runs before them (within the last segment), a permutation
  // test at recent_alpha each time the series is detected; it finds a step a few runs after it.
  std::size_t recent_runs = 5;           // 0 (or below min_segment) switches the stage off
  std::size_t recent_window = 40;
  double recent_alpha = 0.007;
  std::size_t recent_permutations = 9999;
};

struct ChangePoint {
  std::size_t index = 0;            // first run of the new segment (0-based position in the series)
  double level_before = 0.0;        // robust level of the segment before (same units as value)
  double level_after = 0.0;
  double relative_change = 0.0;     // level_after / level_before - 1
  double p_value = 1.0;             // of the test that accepted it
  bool at_evidence_change = false;  // evidence differs between run index-1 and index (or within the
                                    // tolerance window the method documents)
  std::string evidence_change;      // what changed ("driver 550.54 -> 560.28"), empty when none
  std::size_t evidence_index = 0;   // first run with the new evidence (meaningful when at_evidence_change)
};

// The change points of one series, in index order. Throws std::invalid_argument on a non-finite value or
// inverted CI (ci_lower > ci_upper), and on options out of range (alpha or recent_alpha outside (0, 1),
// min_segment 0, fewer permutations than 1 / alpha - 1 or recent_permutations than 1 / recent_alpha - 1, a
// negative min_relative_change or clip). A series shorter than
// 2 * min_segment has none.
std::vector<ChangePoint> detect_change_points(std::span<const SeriesPoint> series,
                                              const ChangePointOptions& options);

// The last stable segment: [first, size) after the last change point (first = 0 without one), and its
// robust level and spread, against which a new run is judged (`check --against-history`).
struct StableSegment {
  std::size_t first = 0;
  std::size_t runs = 0;
  double level = 0.0;
  double spread = 0.0;              // robust scale of the segment's values (same units as value)
};
// Throws std::invalid_argument when a change's index is beyond the series.
StableSegment last_stable_segment(std::span<const SeriesPoint> series, std::span<const ChangePoint> changes);

// Fleet changes: a change is a fleet change when, within `window` runs (by date order of the fleet's runs,
// given as each change's position on a common time axis), changes in the same direction are seen on at least
// `min_share` of the nodes that have the series. Input: per node, its changes and the common-axis position
// of each change; output: for each node, for each of its changes, whether it is a fleet change.
struct NodeChanges {
  std::string node;
  std::vector<ChangePoint> changes;
  std::vector<double> change_times;  // common axis (e.g. seconds since epoch) of each change, same order
};
struct FleetChangeOptions {
  double window = 86400.0;           // same units as change_times
  double min_share = 0.5;            // share of nodes with the series
};
// A fleet change needs at least two nodes (one node alone is never "most of the fleet"); the direction is
// the sign of relative_change (of level_after - level_before when it is 0); equal levels are never one. Throws std::invalid_argument when a node's
// change_times and changes differ in size, a time is not finite, window < 0 or min_share outside (0, 1].
std::vector<std::vector<bool>> fleet_changes(std::span<const NodeChanges> nodes, const FleetChangeOptions& options);

}  // namespace placebench::stats
