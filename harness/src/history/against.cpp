// `check --against-history` (against.h): each figure of the run against (1) the node's last stable segment of
// the same class x arm x metric and (2) its peers: the other nodes' most recent complete runs of the same
// config with that figure, as `fleet` compares a node with the others. FAIL: worse than the level (the
// segment's, or the peers' median) by more than the threshold and by more than z x sqrt(spread^2 + se^2)
// (the segment's or the peers' robust spread, 1.4826 MAD, and the run's own standard error from its CI);
// unknown (never a pass): fewer than min_runs runs in that segment, fewer than min_peers peers.
#include "placebench/harness/history/against.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "placebench/harness/history/changes.h"

namespace placebench::harness::history {
namespace {

using SeriesKey = std::tuple<std::string, std::string, std::string>;

// Is a higher value worse? Times (median, p99) yes, throughput no; a ratio to the baseline follows its
// class's statistic.
bool higher_is_worse(const StoredRun& run, const StoredResult& x) {
  if (x.metric == "throughput") return false;
  if (x.metric != "ratio_pct") return true;
  return std::none_of(run.results.begin(), run.results.end(),
                      [&](const StoredResult& y) { return y.class_name == x.class_name && y.metric == "throughput"; });
}

std::string date_of(const SeriesRunPoint& p) { return p.start ? p.start->substr(0, 10) : "an unknown date"; }
std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

struct Judged {
  const StoredResult& x;
  std::string db, node, config;
  bool worse_up;
};

// What a figure is judged against: a level, its robust spread, and how many values made them.
struct Level {
  double level = 0, spread = 0;
  std::size_t count = 0;
  const char* of = "run";          // "run"s of the node's segment, or "peer"s
  const char* name = "level";      // "level" of the segment, or the peers' "median"
  double threshold_pct = 0;
};

check::CheckResult new_check(const Judged& j, const char* against, const char* kind) {
  const StoredResult& x = j.x;
  return {fmt::format("{} {} {} vs {}", x.class_name, x.arm, x.metric, against), kind, x.class_name, false, "",
          fmt::format("{:.6g} {}", *x.value, x.unit), "", j.db};
}

// Fills c's expected bound, the percent change and the verdict; the amount worse than the level when it
// failed (nullopt when it passed).
std::optional<double> compare_with(check::CheckResult& c, const Judged& j, const Level& l, const AgainstHistoryOptions& o) {
  const StoredResult& x = j.x;
  const bool percent = x.unit == "%";
  const double se = x.ci_lower && x.ci_upper ? (*x.ci_upper - *x.ci_lower) / (2 * 1.959964) : 0.0;
  const double by_noise = o.z * std::sqrt(l.spread * l.spread + se * se);
  const double by_threshold = percent ? l.threshold_pct : l.threshold_pct / 100.0 * std::fabs(l.level);
  const double bound = std::max(by_noise, by_threshold), worse = (j.worse_up ? 1 : -1) * (*x.value - l.level);
  c.expected = fmt::format("{} {:.6g} {} ({} {:.6g}, spread {:.3g}, over {})", j.worse_up ? "<=" : ">=",
                           l.level + (j.worse_up ? bound : -bound), x.unit, l.name, l.level, l.spread, plural(l.count, l.of));
  if (!percent && l.level != 0) c.actual += fmt::format(" ({:+.1f}%)", 100.0 * (*x.value / l.level - 1));
  c.passed = worse <= bound;
  return c.passed ? std::nullopt : std::optional<double>(worse);
}

std::string beyond(const StoredResult& x, const Level& l, const AgainstHistoryOptions& o) {
  const std::string threshold = x.unit == "%" ? fmt::format("{} points", l.threshold_pct) : fmt::format("{}%", l.threshold_pct);
  return fmt::format("> {} and {:.3g} x noise", threshold, o.z);
}

check::CheckResult unknown_check(const Judged& j, check::CheckResult c, const HistorySeries* s, std::size_t runs,
                                 const AgainstHistoryOptions& o) {
  c.unknown = true;
  c.expected = fmt::format("a level from >= {} runs of the node's last stable segment", o.min_runs);
  const std::string since = s && runs > 0 ? " (since " + date_of(s->points[s->points.size() - runs]) + ")" : "";
  c.message = fmt::format("cannot tell: {} in the last stable segment{}, {} needed; add {} more run{} of {} "
                          "(history add) to settle it",
                          plural(runs, "run"), since, o.min_runs, o.min_runs - runs, o.min_runs - runs == 1 ? "" : "s", j.node);
  return c;
}

// The last segment is too short to judge by (a change a few runs ago): the run is judged against the stable
// segment before that change, and FAILs when worse than it, so a regression that has already lasted a few
// runs is not hidden as "cannot tell"; otherwise (not worse than the earlier level, or no earlier segment
// long enough) it cannot tell.
check::CheckResult since_recent_change(const Judged& j, check::CheckResult c, const HistorySeries& s,
                                       const std::vector<stats::SeriesPoint>& points, std::vector<stats::ChangePoint> changes,
                                       const stats::StableSegment& seg, const AgainstHistoryOptions& o) {
  std::erase_if(changes, [&](const stats::ChangePoint& cp) { return cp.index >= seg.first; });
  if (seg.first == 0) return unknown_check(j, std::move(c), &s, seg.runs, o);
  const stats::StableSegment before =
      stats::last_stable_segment(std::span(points).first(seg.first), changes);
  if (before.runs < o.min_runs) return unknown_check(j, std::move(c), &s, seg.runs, o);
  const Level l{before.level, before.spread, before.runs, "run", "level before the change", o.threshold_pct};
  check::CheckResult judged = c;
  if (const std::optional<double> worse = compare_with(judged, j, l, o)) {
    judged.message = fmt::format("against its own past: regression since {} (a change {} ago, too recent for a level "
                                 "of its own): {:.4g} {} worse than the level before it ({})",
                                 date_of(s.points[seg.first]), plural(seg.runs, "run"), *worse, j.x.unit, beyond(j.x, l, o));
    return judged;
  }
  return unknown_check(j, std::move(c), &s, seg.runs, o);
}

check::CheckResult judge(const Judged& j, const HistorySeries* s, const AgainstHistoryOptions& o) {
  check::CheckResult c = new_check(j, "history", "history");
  if (s == nullptr) return unknown_check(j, std::move(c), s, 0, o);
  std::vector<stats::ChangePoint> changes;
  for (const SeriesChange& sc : s->changes) changes.push_back(sc.change);
  const std::vector<stats::SeriesPoint> points = detector_points(*s);
  const stats::StableSegment seg = stats::last_stable_segment(points, changes);
  if (seg.runs < o.min_runs) return since_recent_change(j, std::move(c), *s, points, changes, seg, o);
  const Level l{seg.level, seg.spread, seg.runs, "run", "level", o.threshold_pct};
  if (const std::optional<double> worse = compare_with(c, j, l, o))
    c.message = fmt::format("against its own past: regression since {}: {:.4g} {} worse ({})", date_of(s->points[seg.first]),
                            *worse, j.x.unit, beyond(j.x, l, o));
  return c;
}

// Per series, each other node's figure from its most recent complete run of the same config that started no
// later than the run (a run without a start time counts as the oldest), among its kPeerRunsPerNode most recent.
using Peers = std::map<SeriesKey, std::vector<double>>;
constexpr std::size_t kPeerRunsPerNode = 5;

Peers peer_figures(const std::vector<StoredRun>& stored, const StoredRun& run) {
  const auto later = [](const StoredRun& a, const StoredRun& b) {
    return std::tie(a.start_epoch_s, a.key) > std::tie(b.start_epoch_s, b.key);
  };
  std::map<std::pair<SeriesKey, std::string>, std::pair<const StoredRun*, double>> latest;  // (series, node)
  for (const StoredRun& r : stored) {
    if (r.node == run.node || !r.complete || r.config_name != run.config_name) continue;
    if (run.start_epoch_s && r.start_epoch_s && *r.start_epoch_s > *run.start_epoch_s) continue;
    for (const StoredResult& x : r.results) {
      if (!x.value) continue;
      auto& [at, value] = latest[{{x.class_name, x.arm, x.metric}, r.node}];
      if (at == nullptr || later(r, *at)) {
        at = &r;
        value = *x.value;
      }
    }
  }
  Peers out;
  for (const auto& [key, figure] : latest) out[key.first].push_back(figure.second);
  return out;
}

check::CheckResult judge_peers(const Judged& j, const std::vector<double>* peers, const AgainstHistoryOptions& o) {
  check::CheckResult c = new_check(j, "peers", "peers");
  const std::size_t n = peers ? peers->size() : 0;
  if (n < o.min_peers) {
    c.unknown = true;
    c.expected = fmt::format("a median of >= {} other nodes' latest runs", o.min_peers);
    c.message = fmt::format("cannot tell: {} with this figure in the store, {} needed; add other nodes' runs of "
                            "{} (history add)", plural(n, "peer"), o.min_peers, j.config);
    return c;
  }
  std::vector<stats::SeriesPoint> points;
  for (double v : *peers) points.push_back({v, v, v, "", ""});
  const stats::StableSegment fleet = stats::last_stable_segment(points, {});  // median and 1.4826 MAD of all
  const Level l{fleet.level, fleet.spread, n, "peer", "median", o.peer_threshold_pct};
  if (const std::optional<double> worse = compare_with(c, j, l, o))
    c.message = fmt::format("against its peers: {:.4g} {} worse than the median of {}' latest runs ({})", *worse, j.x.unit,
                            plural(n, "other node"), beyond(j.x, l, o));
  return c;
}

}  // namespace

check::CheckReport check_against_history(const Store& store, const std::string& run_dir, const AgainstHistoryOptions& o) {
  const StoredRun run = read_stored_run(run_dir);
  HistoryFilter filter;
  filter.node = run.node;
  std::vector<StoredRun> stored = store.show(filter);
  const Peers peers = o.min_peers > 0 ? peer_figures(store.latest_of_other_nodes(run.config_name, run.node, run.start_epoch_s,
                                                                                 kPeerRunsPerNode),
                                                     run)
                                      : Peers{};
  std::erase_if(stored, [&](const StoredRun& r) {  // other nodes, itself, and what started after it: no baseline of it
    return r.node != run.node || r.key == run.key ||
           (run.start_epoch_s && r.start_epoch_s && *r.start_epoch_s > *run.start_epoch_s);
  });
  const ChangesReport history = find_changes(stored);
  std::map<SeriesKey, const HistorySeries*> by_key;
  for (const HistorySeries& s : history.series) by_key[{s.class_name, s.arm, s.metric}] = &s;
  check::CheckReport report;
  report.run_dir = run_dir;
  report.reference_path = fmt::format("{} (node {}: {} earlier run{}{})", store.path(), run.node, stored.size(),
                                      stored.size() == 1 ? "" : "s", o.min_peers > 0 ? "; and its peers" : "");
  for (const StoredResult& x : run.results) {
    if (!x.value) continue;
    const SeriesKey key{x.class_name, x.arm, x.metric};
    const Judged j{x, store.path(), run.node, run.config_name, higher_is_worse(run, x)};
    const auto it = by_key.find(key);
    report.checks.push_back(judge(j, it == by_key.end() ? nullptr : it->second, o));
    if (o.min_peers == 0) continue;
    const auto p = peers.find(key);
    report.checks.push_back(judge_peers(j, p == peers.end() ? nullptr : &p->second, o));
  }
  return report;
}

}  // namespace placebench::harness::history
