// The fleet report as a console table: one line per node (verdict, worst slowdown against its peers,
// reasons, wrapped to 100 columns unless --wide), with --history the series that changed since their stable
// level, then the warnings. The numbers behind it are in the JSON.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "placebench/harness/fleet/fleet.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::fleet {
namespace {

constexpr std::size_t kColumns = 100;  // the default table's width (--wide: none)

// A reason beneath its node: "- TEXT" indented under the host column; by default wrapped at spaces to 100
// columns, the continuation lines indented under the text.
std::string reason_lines(const std::string& reason, std::size_t width, bool wide) {
  const std::string first = std::string(width + 4, ' ') + "- ";
  return wide ? first + reason + "\n" : wrap_words(reason, first, first.size(), kColumns);
}

std::string signed_pct(double v) { return fmt::format("{:+.1f}%", std::fabs(v) < 0.05 ? 0.0 : v); }

// --history: a count line, then the series that moved beyond the tolerance from their stable level or have a
// change point (the JSON has every series), each change's attribution on a line below it.
std::string changed_since_lines(const FleetHistory& h, double tolerance_pct, bool wide) {
  const ChangedSinceCounts n = count_changed_since(h, tolerance_pct);
  std::set<std::string> hosts;
  std::vector<std::vector<std::string>> rows{{"  host", "class/arm", "metric", "latest", "level", "change", "last change", ""}};
  std::vector<std::string> notes{""};
  for (const ChangedSince& c : h.series) {
    hosts.insert(c.host);
    if (!listed_as_changed(c, tolerance_pct)) continue;
    const auto& lc = c.last_change;
    rows.push_back({"  " + escape_control(c.host), escape_control(c.class_name + "/" + c.arm),
                    escape_control(c.metric + " " + c.unit),
                    fmt::format("{:.4g}", c.latest), c.level ? fmt::format("{:.4g}", *c.level) : "?",
                    c.change_pct ? signed_pct(*c.change_pct) : "?",
                    lc ? (lc->start ? lc->start->substr(0, 10) : "?") + (lc->fleet ? " fleet" : "") : "none",
                    lc ? signed_pct(lc->change_pct) : ""});
    notes.push_back(lc && lc->attribution ? escape_control("at " + *lc->attribution) : "");
  }
  std::string out = wrap_words(fmt::format("{} series of {} nodes in {}: {} beyond +-{:g}% of their stable level, {} with a "
                                           "change point, {} cannot tell (too few runs)",
                                           h.series.size(), hosts.size(), escape_control(h.db), n.moved, tolerance_pct,
                                           n.changed, n.cannot_tell),
                               "changed since: ", 2, wide ? std::string::npos : kColumns);
  if (rows.size() == 1) return out;
  const std::string table = fit_columns(rows, "lllrrrlr");  // one line per row, each ending in "\n"
  for (std::size_t i = 0, at = 0; at < table.size() && i < notes.size(); ++i) {
    const std::size_t end = std::min(table.find('\n', at), table.size() - 1);
    out += table.substr(at, end + 1 - at);
    at = end + 1;
    if (!notes[i].empty()) out += reason_lines(notes[i], 2, wide);
  }
  return out;
}

}  // namespace

bool listed_as_changed(const ChangedSince& c, double tolerance_pct) {
  return (c.change_pct && std::fabs(*c.change_pct) > tolerance_pct) || c.last_change.has_value();
}

ChangedSinceCounts count_changed_since(const FleetHistory& h, double tolerance_pct) {
  ChangedSinceCounts n;
  for (const ChangedSince& c : h.series) {
    n.moved += c.change_pct && std::fabs(*c.change_pct) > tolerance_pct;
    n.changed += c.last_change.has_value();
    n.cannot_tell += !c.change_pct;
  }
  return n;
}

std::string render_fleet_table(const FleetReport& r, bool wide) {
  std::map<std::string, std::pair<double, std::string>> worst;  // host -> (slowdown, row)
  for (const MetricRow& row : r.metrics)
    for (const NodeMetric& m : row.nodes) {
      if (!m.slowdown_pct) continue;
      auto it = worst.find(m.host);
      if (it == worst.end() || *m.slowdown_pct > it->second.first)
        worst[m.host] = {*m.slowdown_pct, fmt::format("{}/{} gpu {}", escape_control(row.class_name), escape_control(row.arm), row.gpu)};
    }
  std::size_t width = 4;
  for (const NodeVerdict& v : r.verdicts) width = std::max(width, escape_control(v.host).size());
  std::string out = fmt::format("fleet: {} nodes, {} suspect{}, tolerance {:g}%, {} metrics\n", r.input.nodes.size(),
                                r.suspects.size(), r.suspects.size() == 1 ? "" : "s", r.options.tolerance_pct, r.metrics.size());
  out += fmt::format("{:<{}}  {:<7}  {:>9}  {}\n", "host", width, "verdict", "worst", "where / reasons");
  for (const NodeVerdict& v : r.verdicts) {
    auto w = worst.find(v.host);
    // A change that rounds to 0.0 is "+0.0%", never "-0.0%".
    const double worst_value = w == worst.end() || std::fabs(w->second.first) < 0.05 ? 0.0 : w->second.first;
    std::string worst_pct = w == worst.end() ? "-" : fmt::format("{:+.1f}%", worst_value);
    std::string where = w == worst.end() ? "" : w->second.second;
    std::string line = fmt::format("{:<{}}  {:<7}  {:>9}  {}", escape_control(v.host), width, v.suspect ? "SUSPECT" : "pass", worst_pct, where);
    out += trim_right(line) + "\n";
    for (const std::string& reason : v.reasons) out += reason_lines(escape_control(reason), width, wide);
  }
  for (const SkippedRun& s : r.input.skipped) out += fmt::format("skipped {}: {}\n", escape_control(s.dir), escape_control(s.reason));
  if (!r.suspects.empty()) {
    out += "suspects, worst first:";
    for (const Suspect& s : r.suspects) out += " " + escape_control(s.host);
    out += "\n";
  }
  if (r.history) out += changed_since_lines(*r.history, r.options.tolerance_pct, wide);
  for (const std::string& w : r.warnings) out += "warning: " + escape_control(w) + "\n";
  return out;
}

}  // namespace placebench::harness::fleet
