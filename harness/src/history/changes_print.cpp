// `history changes` printers (changes.h): a row per change (node, series, date, levels, % change, p, fleet or
// node) with the attributed evidence on the line below, a row per series too short to tell, a summary line;
// all within 100 columns unless wide. The JSON contract ("placebench-history-changes", docs/history.md).
#include <fmt/format.h>

#include <cmath>

#include "placebench/harness/history/changes.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/harness/text_clip.h"

namespace placebench::harness::history {
namespace {

using nlohmann::json;

constexpr std::size_t kColumns = 100;

std::string fit(const std::string& text, std::size_t width, bool wide) {
  std::string t = escape_control(text);
  return wide || t.size() <= width ? t : utf8_prefix(t, width - 1) + "~";
}

std::string date_of(const std::optional<std::string>& start) { return start ? start->substr(0, 10) : "unknown"; }

std::string series_name(const HistorySeries& s) { return s.class_name + "/" + s.arm + "/" + s.metric; }

json optional_json(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json number_json(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string change_row(const HistorySeries& s, const SeriesChange& c, bool wide) {
  const stats::ChangePoint& p = c.change;
  return fmt::format("{:<14}  {:<27}  {:<10}  {:<19}  {:>7}  {:>6}  {:<5}\n", fit(s.node, 14, wide),
                     fit(series_name(s), 27, wide), date_of(s.points[p.index].start),
                     fit(fmt::format("{:.4g} -> {:.4g}", p.level_before, p.level_after), 19, wide),
                     fmt::format("{:+.1f}%", 100.0 * p.relative_change), fmt::format("{:.3f}", p.p_value),
                     c.fleet ? "fleet" : "node");
}

json series_json(const HistorySeries& s) {
  json points = json::array(), changes = json::array();
  for (const SeriesRunPoint& p : s.points)
    points.push_back({{"run_key", p.run_key}, {"start", optional_json(p.start)}, {"value", number_json(p.value)},
                      {"ci_low", number_json(p.ci_low)}, {"ci_high", number_json(p.ci_high)}});
  for (const SeriesChange& c : s.changes) {
    const SeriesRunPoint& at = s.points[c.change.index];
    changes.push_back({{"index", c.change.index}, {"run_key", at.run_key}, {"start", optional_json(at.start)},
                       {"before", number_json(c.change.level_before)}, {"after", number_json(c.change.level_after)},
                       {"relative", number_json(c.change.relative_change)}, {"p_value", number_json(c.change.p_value)},
                       {"attribution", optional_json(c.attribution)}, {"fleet", c.fleet}});
  }
  return {{"node", s.node}, {"class", s.class_name}, {"arm", s.arm}, {"metric", s.metric}, {"unit", s.unit},
          {"status", s.status}, {"points", std::move(points)}, {"changes", std::move(changes)}};
}

}  // namespace

std::string render_changes_table(const ChangesReport& report, bool wide) {
  std::string out = fmt::format("{:<14}  {:<27}  {:<10}  {:<19}  {:>7}  {:>6}  {:<5}\n", "node", "class/arm/metric",
                                "changed", "before -> after", "change", "p", "scope");
  std::size_t too_short = 0;
  for (const HistorySeries& s : report.series) {
    for (const SeriesChange& c : s.changes) {
      out += change_row(s, c, wide);
      const std::string what = c.attribution ? escape_control(*c.attribution) : "none recorded";
      out += wide ? "    evidence: " + what + "\n" : wrap_words(what, "    evidence: ", 6, kColumns);
    }
    if (s.status != "too-short") continue;
    ++too_short;
    out += fmt::format("{:<14}  {:<27}  too short to tell: {} run{} (needs {})\n", fit(s.node, 14, wide),
                       fit(series_name(s), 27, wide), s.points.size(), s.points.size() == 1 ? "" : "s", report.min_runs);
  }
  out += fmt::format("{} change{} in {} series; {} fleet change{}; {} series too short to tell\n", report.change_count(),
                     report.change_count() == 1 ? "" : "s", report.series.size(), report.fleet_changes.size(),
                     report.fleet_changes.size() == 1 ? "" : "s", too_short);
  return out;
}

json changes_to_json(const std::string& db, const ChangesReport& report) {
  json series = json::array(), fleet = json::array();
  for (const HistorySeries& s : report.series) series.push_back(series_json(s));
  for (const FleetChange& f : report.fleet_changes)
    fleet.push_back({{"start", optional_json(f.start)}, {"class", f.class_name}, {"arm", f.arm}, {"metric", f.metric},
                     {"nodes", f.nodes}});
  return {{"kind", "placebench-history-changes"}, {"schema_version", kChangesJsonSchemaVersion}, {"store", db},
          {"change_count", report.change_count()}, {"min_runs", report.min_runs}, {"series", std::move(series)}, {"fleet_changes", std::move(fleet)}};
}

}  // namespace placebench::harness::history
