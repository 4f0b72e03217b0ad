// `check --against-history` (against.h): each figure of the run against the node's last stable segment of
// the same class x arm x metric. FAIL: worse than the segment's level by more than the threshold and by more
// than z x sqrt(spread^2 + se^2) (the segment's robust spread, the run's own standard error from its CI);
// unknown (never a pass): fewer than min_runs runs in that segment.
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

struct Judged {
  const StoredResult& x;
  std::string db, node;
  bool worse_up;
};

check::CheckResult unknown_check(const Judged& j, check::CheckResult c, const HistorySeries* s, std::size_t runs,
                                 const AgainstHistoryOptions& o) {
  c.unknown = true;
  c.expected = fmt::format("a level from >= {} runs of the node's last stable segment", o.min_runs);
  const std::string since = s && runs > 0 ? " (since " + date_of(s->points[s->points.size() - runs]) + ")" : "";
  c.message = fmt::format("cannot tell: {} run{} in the last stable segment{}, {} needed; add {} more run{} of {} "
                          "(history add) to settle it",
                          runs, runs == 1 ? "" : "s", since, o.min_runs, o.min_runs - runs, o.min_runs - runs == 1 ? "" : "s",
                          j.node);
  return c;
}

check::CheckResult judge(const Judged& j, const HistorySeries* s, const AgainstHistoryOptions& o) {
  const StoredResult& x = j.x;
  check::CheckResult c{fmt::format("{} {} {} vs history", x.class_name, x.arm, x.metric), "history", x.class_name, false,
                       "", fmt::format("{:.6g} {}", *x.value, x.unit), "", j.db};
  if (s == nullptr) return unknown_check(j, std::move(c), s, 0, o);
  std::vector<stats::ChangePoint> changes;
  for (const SeriesChange& sc : s->changes) changes.push_back(sc.change);
  const stats::StableSegment seg = stats::last_stable_segment(detector_points(*s), changes);
  if (seg.runs < o.min_runs) return unknown_check(j, std::move(c), s, seg.runs, o);
  const bool percent = x.unit == "%";
  const double se = x.ci_lower && x.ci_upper ? (*x.ci_upper - *x.ci_lower) / (2 * 1.959964) : 0.0;
  const double by_noise = o.z * std::sqrt(seg.spread * seg.spread + se * se);
  const double by_threshold = percent ? o.threshold_pct : o.threshold_pct / 100.0 * std::fabs(seg.level);
  const double bound = std::max(by_noise, by_threshold), worse = (j.worse_up ? 1 : -1) * (*x.value - seg.level);
  c.expected = fmt::format("{} {:.6g} {} (level {:.6g}, spread {:.3g}, over {} runs)", j.worse_up ? "<=" : ">=",
                           seg.level + (j.worse_up ? bound : -bound), x.unit, seg.level, seg.spread, seg.runs);
  if (!percent && seg.level != 0) c.actual += fmt::format(" ({:+.1f}%)", 100.0 * (*x.value / seg.level - 1));
  c.passed = worse <= bound;
  if (!c.passed)
    c.message = fmt::format("regression since {}: {:.4g} {} worse (> {} and {:.3g} x noise)", date_of(s->points[seg.first]),
                            worse, x.unit, percent ? fmt::format("{} points", o.threshold_pct) : fmt::format("{}%", o.threshold_pct),
                            o.z);
  return c;
}

}  // namespace

check::CheckReport check_against_history(const Store& store, const std::string& run_dir, const AgainstHistoryOptions& o) {
  const StoredRun run = read_stored_run(run_dir);
  HistoryFilter filter;
  filter.node = run.node;
  std::vector<StoredRun> past = store.show(filter);
  std::erase_if(past, [&](const StoredRun& r) {  // itself, and what started after it, are no baseline of it
    return r.key == run.key || (run.start_epoch_s && r.start_epoch_s && *r.start_epoch_s > *run.start_epoch_s);
  });
  const ChangesReport history = find_changes(past);
  std::map<SeriesKey, const HistorySeries*> by_key;
  for (const HistorySeries& s : history.series) by_key[{s.class_name, s.arm, s.metric}] = &s;
  check::CheckReport report;
  report.run_dir = run_dir;
  report.reference_path = fmt::format("{} (node {}: {} earlier run{})", store.path(), run.node, past.size(),
                                      past.size() == 1 ? "" : "s");
  for (const StoredResult& x : run.results) {
    if (!x.value) continue;
    const auto it = by_key.find({x.class_name, x.arm, x.metric});
    report.checks.push_back(judge({x, store.path(), run.node, higher_is_worse(run, x)},
                                  it == by_key.end() ? nullptr : it->second, o));
  }
  return report;
}

}  // namespace placebench::harness::history
