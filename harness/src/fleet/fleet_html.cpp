// The fleet report as one self-contained HTML page (no scripts, no external files): a node x metric heat
// map of the slowdown against the fleet median (red: slower, blue: faster, white: as its peers; a framed
// cell is a proven slowdown beyond the tolerance), then the suspects with their reasons and the topology,
// and with --history what changed since each node's stable level.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "placebench/harness/check/printers.h"
#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {
namespace {

using check::xml_escape;

// WCAG 2.1 relative luminance of an sRGB colour (channels 0..255).
double luminance(int r, int g, int b) {
  auto lin = [](int c) {
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

// White at 0, deeper towards twice the tolerance (or beyond), but never so deep that the cell's black text
// falls below WCAG AA's 4.5:1 (saturated blue would be 2.4:1): (L + 0.05) / 0.05 >= 4.5.
std::string cell_colour(double slowdown_pct, double tolerance_pct) {
  double t = std::min(1.0, std::fabs(slowdown_pct) / std::max(1e-9, 2 * tolerance_pct));
  int fade = static_cast<int>(std::lround(255 * (1 - t)));
  const bool slower = slowdown_pct >= 0;
  auto readable = [&](int f) { return (slower ? luminance(255, f, f) : luminance(f, f, 255)) + 0.05 >= 4.5 * 0.05; };
  while (fade < 255 && !readable(fade)) ++fade;
  return slower ? fmt::format("#ff{:02x}{:02x}", fade, fade) : fmt::format("#{:02x}{:02x}ff", fade, fade);
}

std::string heat_map(const FleetReport& r) {
  std::string out = "<table class=\"heat\">\n<tr><th>node</th>";
  for (const MetricRow& row : r.metrics)
    out += fmt::format("<th>{}<br>{}<br>gpu {}</th>", xml_escape(row.class_name), xml_escape(row.arm), xml_escape(row.gpu));
  out += "</tr>\n";
  for (const NodeVerdict& v : r.verdicts) {
    out += fmt::format("<tr><th class=\"{}\">{}</th>", v.suspect ? "suspect" : "pass", xml_escape(v.host));
    for (const MetricRow& row : r.metrics) {
      auto m = std::find_if(row.nodes.begin(), row.nodes.end(), [&](const NodeMetric& x) { return x.host == v.host; });
      if (m == row.nodes.end()) {
        out += "<td class=\"missing\">missing</td>";
      } else if (!m->slowdown_pct) {
        out += "<td>no peers</td>";
      } else {
        out += fmt::format("<td style=\"background:{}\" class=\"{}\" title=\"{} {:.6g} {}; fleet median {:.6g}; CI {:+.1f}% .. "
                           "{:+.1f}%\">{:+.1f}%</td>",
                           cell_colour(*m->slowdown_pct, r.options.tolerance_pct), m->status, xml_escape(row.statistic),
                           m->value, xml_escape(row.unit), *m->fleet_median, *m->slowdown_lo_pct, *m->slowdown_hi_pct,
                           *m->slowdown_pct);
      }
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string lists(const FleetReport& r) {
  std::string out = "<h2>Suspects, worst first</h2>\n";
  if (r.suspects.empty()) out += "<p>None: every node is within the tolerance of its peers.</p>\n";
  else out += "<ol>\n";
  for (const Suspect& s : r.suspects) {
    out += fmt::format("<li><b>{}</b><ul>", xml_escape(s.host));
    for (const std::string& reason : s.reasons) out += "<li>" + xml_escape(reason) + "</li>";
    out += "</ul></li>\n";
  }
  if (!r.suspects.empty()) out += "</ol>\n";
  out += "<h2>Topology</h2>\n<table><tr><th>field</th><th>fleet value</th><th>differing nodes</th></tr>\n";
  for (const TopologyField& t : r.topology) {
    std::string diff;
    for (const auto& [host, value] : t.mismatches) diff += (diff.empty() ? "" : "; ") + host + ": " + value;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", xml_escape(t.name),
                       xml_escape(t.fleet_value.empty() ? "(no majority)" : t.fleet_value), xml_escape(diff.empty() ? "-" : diff));
  }
  out += "</table>\n";
  if (!r.warnings.empty()) {
    out += "<h2>Warnings</h2>\n<ul>\n";
    for (const std::string& w : r.warnings) out += "<li>" + xml_escape(w) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

// --history DB: the series that moved beyond the tolerance from their stable level or have a change point
// (as the table lists them; the JSON has every series), with the change's date and the evidence it is put to.
std::string changed_since(const FleetHistory& h, double tolerance_pct) {
  const ChangedSinceCounts n = count_changed_since(h, tolerance_pct);
  std::string rows;
  for (const ChangedSince& c : h.series) {
    if (!listed_as_changed(c, tolerance_pct)) continue;
    const auto& lc = c.last_change;
    rows += fmt::format("<tr><td>{}</td><td>{}/{}</td><td>{} {}</td><td>{:.4g}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                        "<td style=\"text-align:left\">{}</td></tr>\n",
                        xml_escape(c.host), xml_escape(c.class_name), xml_escape(c.arm), xml_escape(c.metric), xml_escape(c.unit),
                        c.latest, c.level ? fmt::format("{:.4g}", *c.level) : "?",
                        c.change_pct ? fmt::format("{:+.1f}%", *c.change_pct) : "cannot tell",
                        lc ? xml_escape(lc->start.value_or("?")) + (lc->fleet ? " (fleet)" : "") : "none",
                        lc ? fmt::format("{:+.1f}%", lc->change_pct) : "", lc && lc->attribution ? xml_escape(*lc->attribution) : "");
  }
  std::string out = fmt::format("<h2>Changed since (history {})</h2>\n<p>{} series: {} beyond &plusmn;{:g}% of their stable "
                                "level, {} with a change point, {} cannot tell (too few runs). Change: the latest figure "
                                "against the node's own last stable level; last change: where its level last moved "
                                "(docs/fleet.md).</p>\n",
                                xml_escape(h.db), h.series.size(), n.moved, tolerance_pct, n.changed, n.cannot_tell);
  if (rows.empty()) return out;
  return out + "<table><tr><th>node</th><th>class/arm</th><th>metric</th><th>latest</th><th>stable level</th><th>change</th>"
               "<th>last change</th><th>its size</th><th>at an evidence change</th></tr>\n" + rows + "</table>\n";
}

}  // namespace

std::string render_fleet_html(const FleetReport& r, const std::string& generated_at) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>placebench fleet</title>\n";
  out += "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;margin:0.5em 0}"
         "th,td{border:1px solid #999;padding:3px 6px;text-align:right;font-size:0.9em}th{background:#eee}"
         "td.slower{outline:3px solid #900;outline-offset:-3px;font-weight:bold}td.missing{background:#ccc}"
         "th.suspect{color:#900}th.pass{color:#060}</style>\n</head>\n<body>\n";
  out += fmt::format("<h1>placebench fleet: {} nodes, {} suspect</h1>\n", r.input.nodes.size(), r.suspects.size());
  out += fmt::format("<p>Generated {}. Each cell: the node's class statistic against the median of the other nodes, as "
                     "a change of step time; red is slower, blue faster; a framed cell is slower beyond the tolerance "
                     "of {:g}% with its CI beyond it too (docs/fleet.md).</p>\n",
                     xml_escape(generated_at), r.options.tolerance_pct);
  out += heat_map(r) + lists(r);
  if (r.history) out += changed_since(*r.history, r.options.tolerance_pct);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace placebench::harness::fleet
