// Change points from the store (changes.h): the series built from the stored runs in run order, each point
// with the node's evidence (unknowns filled from the node's known values, so a NULL is never a change), the
// detector run on each, every change attributed and marked fleet or node.
#include "placebench/harness/history/changes.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace placebench::harness::history {
namespace {

using Item = std::pair<const char*, std::optional<std::string>>;

std::optional<std::string> text_of(const std::optional<std::int64_t>& v) {
  return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
}

// Names without spaces: the detector's message parses "name=value" items.
std::vector<Item> evidence_items(const NodeEvidence& e) {
  return {{"placebench", e.placebench_version}, {"git", e.git_revision}, {"kernel", e.kernel},
          {"gpu_driver", e.gpu_driver}, {"cuda_driver", e.cuda_driver}, {"cuda_runtime", e.cuda_runtime},
          {"nccl", e.nccl}, {"mpi", e.mpi}, {"hwloc", e.hwloc}, {"topology", e.topology_digest},
          {"numa_nodes", text_of(e.numa_nodes)}, {"packages", text_of(e.packages)}, {"gpus", text_of(e.gpus)}};
}

// One node's runs (in run order): each run's evidence detail, a run's unknown item taking the last known
// value before it, or the first known after it when none came before (we cannot tell it differed).
std::vector<std::string> node_evidence_details(const std::vector<const StoredRun*>& runs) {
  std::vector<std::vector<Item>> items;
  for (const StoredRun* r : runs) items.push_back(evidence_items(r->evidence));
  std::vector<std::string> details(runs.size());
  if (items.empty()) return details;
  for (std::size_t k = 0; k < items.front().size(); ++k) {
    std::optional<std::string> last;
    for (const auto& run : items)  // the first known value, for the leading unknowns
      if (run[k].second) { last = run[k].second; break; }
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i][k].second) last = items[i][k].second;
      details[i] += fmt::format("{}{}={}", k ? "; " : "", items[i][k].first, last ? *last : "unknown");
    }
  }
  return details;
}

bool run_order(const StoredRun* a, const StoredRun* b) {
  return std::tie(a->node, a->start_epoch_s, a->key) < std::tie(b->node, b->start_epoch_s, b->key);
}

std::string series_status(const HistorySeries& s, const ChangesOptions& o) {
  if (s.points.size() < 2 * o.detector.min_segment) return "too-short";
  return s.changes.empty() ? "no-change" : "changed";
}

}  // namespace

std::size_t ChangesReport::change_count() const {
  std::size_t n = 0;
  for (const auto& s : series) n += s.changes.size();
  return n;
}

std::vector<HistorySeries> build_series(const std::vector<StoredRun>& runs) {
  std::vector<const StoredRun*> order;
  for (const auto& r : runs) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), run_order);
  std::map<std::tuple<std::string, std::string, std::string, std::string>, HistorySeries> series;
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first;
    while (last < order.size() && order[last]->node == order[first]->node) ++last;
    const std::vector<const StoredRun*> node_runs(order.begin() + static_cast<std::ptrdiff_t>(first),
                                                  order.begin() + static_cast<std::ptrdiff_t>(last));
    const std::vector<std::string> details = node_evidence_details(node_runs);
    for (std::size_t i = 0; i < node_runs.size(); ++i) {
      const StoredRun& r = *node_runs[i];
      for (const StoredResult& x : r.results) {
        if (!x.value) continue;
        HistorySeries& s = series[{r.node, x.class_name, x.arm, x.metric}];
        if (s.points.empty()) s = {r.node, x.class_name, x.arm, x.metric, x.unit, "", {}, {}};
        const bool ci = x.ci_lower && x.ci_upper && *x.ci_lower <= *x.value && *x.value <= *x.ci_upper;
        s.points.push_back({r.key, r.start_time, r.start_epoch_s, *x.value, ci ? *x.ci_lower : *x.value,
                            ci ? *x.ci_upper : *x.value, details[i]});
      }
    }
    first = last;
  }
  std::vector<HistorySeries> out;
  for (auto& [key, s] : series) out.push_back(std::move(s));
  return out;
}

std::vector<stats::SeriesPoint> detector_points(const HistorySeries& series) {
  std::vector<stats::SeriesPoint> points;
  points.reserve(series.points.size());
  for (const auto& p : series.points) points.push_back({p.value, p.ci_low, p.ci_high, p.evidence_detail, p.evidence_detail});
  return points;
}

void mark_fleet_changes(ChangesReport& report, const stats::FleetChangeOptions& options);  // changes_fleet.cpp

namespace {

// The series' change points, each attributed to the evidence that changed at it, and its status.
void detect(HistorySeries& s, const ChangesOptions& options) {
  const std::vector<stats::SeriesPoint> points = detector_points(s);
  for (const stats::ChangePoint& c : stats::detect_change_points(points, options.detector)) {
    SeriesChange change{c, std::nullopt, false};
    if (c.at_evidence_change && !c.evidence_change.empty()) change.attribution = c.evidence_change;
    s.changes.push_back(std::move(change));
  }
  s.status = series_status(s, options);
}

}  // namespace

ChangesReport find_changes(const std::vector<StoredRun>& runs, const ChangesOptions& options) {
  ChangesReport report;
  report.min_runs = 2 * options.detector.min_segment;
  report.series = build_series(runs);
  for (HistorySeries& s : report.series) detect(s, options);
  mark_fleet_changes(report, options.fleet);
  return report;
}

// Node by node (the series are per node, each node's runs read, built and detected, then let go), so the
// store's rows are never all held at once; the points kept without their evidence detail (the printers do
// not show it; the attribution already says what changed). Series in node order, as build_series gives them.
ChangesReport find_changes(const Store& store, const HistoryFilter& filter, const ChangesOptions& options) {
  ChangesReport report;
  report.min_runs = 2 * options.detector.min_segment;
  std::vector<std::string> nodes = store.nodes(filter);
  std::sort(nodes.begin(), nodes.end());
  for (const std::string& node : nodes) {
    HistoryFilter one = filter;
    one.node = node;
    for (HistorySeries& s : build_series(store.show(one))) {
      detect(s, options);
      for (SeriesRunPoint& p : s.points) std::string().swap(p.evidence_detail);
      s.points.shrink_to_fit();
      report.series.push_back(std::move(s));
    }
  }
  mark_fleet_changes(report, options.fleet);
  return report;
}

}  // namespace placebench::harness::history
