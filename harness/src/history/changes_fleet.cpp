// Fleet changes (changes.h): per class x arm x metric, the nodes' changes on the start-time axis through
// stats::fleet_changes; the flagged ones grouped (same direction, within the window of the group's first)
// into one fleet change each, naming its nodes. A change whose run has no start time is never a fleet one.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "placebench/harness/history/changes.h"

namespace placebench::harness::history {
namespace {

struct Flagged {
  double time;
  bool up;
  std::string node;
  std::optional<std::string> start;
};

void group_flagged(std::vector<Flagged> flagged, const std::string& class_name, const std::string& arm,
                   const std::string& metric, double window, std::vector<FleetChange>& out) {
  std::sort(flagged.begin(), flagged.end(), [](const Flagged& a, const Flagged& b) { return a.time < b.time; });
  for (bool up : {false, true}) {
    std::optional<double> first;
    for (const Flagged& f : flagged) {
      if (f.up != up) continue;
      if (!first || f.time - *first > window) {
        first = f.time;
        out.push_back({f.start, class_name, arm, metric, {}});
      }
      if (std::find(out.back().nodes.begin(), out.back().nodes.end(), f.node) == out.back().nodes.end())
        out.back().nodes.push_back(f.node);
    }
  }
}

}  // namespace

void mark_fleet_changes(ChangesReport& report, const stats::FleetChangeOptions& options) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<HistorySeries*>> groups;
  for (HistorySeries& s : report.series) groups[{s.class_name, s.arm, s.metric}].push_back(&s);
  for (auto& [key, members] : groups) {
    std::vector<stats::NodeChanges> nodes;
    std::vector<HistorySeries*> timed;
    for (HistorySeries* s : members) {
      stats::NodeChanges n{s->node, {}, {}};
      bool all_timed = true;
      for (const SeriesChange& c : s->changes) {
        const auto& t = s->points[c.change.index].start_epoch_s;
        all_timed = all_timed && t && std::isfinite(*t);
        n.changes.push_back(c.change);
        n.change_times.push_back(t && std::isfinite(*t) ? *t : 0.0);
      }
      if (!all_timed) n.changes.clear(), n.change_times.clear();  // a node with the series, none placed in time
      nodes.push_back(std::move(n));
      timed.push_back(all_timed ? s : nullptr);
    }
    const std::vector<std::vector<bool>> fleet = stats::fleet_changes(nodes, options);
    std::vector<Flagged> flagged;
    for (std::size_t i = 0; i < timed.size(); ++i) {
      if (timed[i] == nullptr) continue;
      for (std::size_t j = 0; j < timed[i]->changes.size(); ++j) {
        SeriesChange& c = timed[i]->changes[j];
        c.fleet = fleet[i][j];
        if (!c.fleet) continue;
        const SeriesRunPoint& p = timed[i]->points[c.change.index];
        flagged.push_back({*p.start_epoch_s, c.change.level_after > c.change.level_before, timed[i]->node, p.start});
      }
    }
    group_flagged(std::move(flagged), std::get<0>(key), std::get<1>(key), std::get<2>(key), options.window,
                  report.fleet_changes);
  }
}

}  // namespace placebench::harness::history
