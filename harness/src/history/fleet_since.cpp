// "Changed since" for `fleet --history` (fleet_since.h): the series `history changes` finds (find_changes), each
// node's latest figure against the last stable segment before it (stats::last_stable_segment over the runs
// before the latest, cut at the detected changes), and the last change with its date, size and attribution.
#include "placebench/harness/history/fleet_since.h"

#include <algorithm>
#include <iterator>

#include "placebench/harness/history/changes.h"

namespace placebench::harness::history {
namespace {

fleet::ChangedSince since_of(const HistorySeries& s) {
  fleet::ChangedSince c;
  c.host = s.node;
  c.class_name = s.class_name;
  c.arm = s.arm;
  c.metric = s.metric;
  c.unit = s.unit;
  c.status = s.status;
  if (s.points.empty()) return c;
  const SeriesRunPoint& last = s.points.back();
  c.run_key = last.run_key;
  c.run_start = last.start;
  c.latest = last.value;
  if (!s.changes.empty()) {
    const SeriesChange& lc = s.changes.back();  // in index order: the last
    const SeriesRunPoint& at = s.points.at(lc.change.index);
    c.last_change = fleet::ChangedSince::LastChange{at.run_key,   at.start,  at.start_epoch_s,
                                                    100.0 * lc.change.relative_change, lc.attribution, lc.fleet};
  }
  if (s.status == "too-short") return c;  // the detector cannot tell where a stable level is
  std::vector<stats::SeriesPoint> before = detector_points(s);
  before.pop_back();
  std::vector<stats::ChangePoint> changes;
  for (const SeriesChange& sc : s.changes)
    if (sc.change.index <= before.size()) changes.push_back(sc.change);
  const stats::StableSegment seg = stats::last_stable_segment(before, changes);
  if (seg.runs == 0) return c;
  c.level = seg.level;
  c.segment_runs = seg.runs;
  if (seg.level != 0) c.change_pct = 100.0 * (last.value / seg.level - 1);
  return c;
}

}  // namespace

fleet::FleetHistory fleet_changed_since(const Store& store, const std::vector<std::string>& hosts,
                                        const std::vector<std::string>& metric_selectors) {
  std::vector<StoredRun> runs;
  for (const std::string& host : hosts) {
    HistoryFilter filter;
    filter.node = host;
    std::vector<StoredRun> part = store.show(filter);
    std::move(part.begin(), part.end(), std::back_inserter(runs));
  }
  fleet::FleetHistory out;
  out.db = store.path();
  for (const HistorySeries& s : find_changes(runs).series)  // sorted by node, class, arm, metric
    if (fleet::metric_selected(metric_selectors, s.class_name, s.arm)) out.series.push_back(since_of(s));
  return out;
}

}  // namespace placebench::harness::history
