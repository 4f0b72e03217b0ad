// fleet_changes: a node's change is a fleet change when changes in the same direction are seen, within
// `window` of it on the common time axis, on at least min_share of the nodes (and on two nodes at least).
// One sweep per direction over the changes sorted by time, with a sliding window that counts distinct nodes:
// O(E log E) for E changes, so a fleet of thousands of nodes costs milliseconds.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "placebench/stats/change_points.h"

namespace placebench::stats {
namespace {

struct Event {
  double time = 0.0;
  std::size_t node = 0;
  std::size_t change = 0;
};

void validate(std::span<const NodeChanges> nodes, const FleetChangeOptions& options) {
  if (!(options.window >= 0.0) || !std::isfinite(options.window))
    throw std::invalid_argument("fleet_changes: window must be finite and >= 0; got " + std::to_string(options.window));
  if (!(options.min_share > 0.0 && options.min_share <= 1.0))
    throw std::invalid_argument("fleet_changes: min_share must be in (0, 1], e.g. 0.5; got " +
                                std::to_string(options.min_share));
  for (const NodeChanges& n : nodes) {
    if (n.change_times.size() != n.changes.size())
      throw std::invalid_argument("fleet_changes: node '" + n.node + "' has " + std::to_string(n.changes.size()) +
                                  " changes but " + std::to_string(n.change_times.size()) + " change_times");
    for (const double t : n.change_times)
      if (!std::isfinite(t)) throw std::invalid_argument("fleet_changes: node '" + n.node + "' has a non-finite time");
  }
}

// Marks the events (sorted by time) whose window holds at least `needed` distinct nodes.
void mark_direction(std::vector<Event>& events, std::size_t node_count, std::size_t needed, double window,
                    std::vector<std::vector<bool>>& out) {
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  std::vector<std::size_t> in_window(node_count, 0);
  std::size_t distinct = 0, lo = 0, hi = 0;
  for (const Event& e : events) {
    for (; hi < events.size() && events[hi].time <= e.time + window; ++hi)
      if (in_window[events[hi].node]++ == 0) ++distinct;
    for (; events[lo].time < e.time - window; ++lo)
      if (--in_window[events[lo].node] == 0) --distinct;
    if (distinct >= needed) out[e.node][e.change] = true;
  }
}

}  // namespace

std::vector<std::vector<bool>> fleet_changes(std::span<const NodeChanges> nodes, const FleetChangeOptions& options) {
  validate(nodes, options);
  std::vector<std::vector<bool>> out(nodes.size());
  std::vector<Event> up, down;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    out[i].assign(nodes[i].changes.size(), false);
    for (std::size_t c = 0; c < nodes[i].changes.size(); ++c) {
      const ChangePoint& cp = nodes[i].changes[c];
      const double rel = cp.relative_change != 0.0 ? cp.relative_change : cp.level_after - cp.level_before;
      if (rel > 0.0) up.push_back({nodes[i].change_times[c], i, c});
      if (rel < 0.0) down.push_back({nodes[i].change_times[c], i, c});
    }
  }
  const double share_nodes = std::ceil(options.min_share * static_cast<double>(nodes.size()) - 1e-9);
  const std::size_t needed = std::max<std::size_t>(2, static_cast<std::size_t>(share_nodes));
  mark_direction(up, nodes.size(), needed, options.window, out);
  mark_direction(down, nodes.size(), needed, options.window, out);
  return out;
}

}  // namespace placebench::stats
