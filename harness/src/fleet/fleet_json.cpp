// The fleet report as JSON (docs/fleet.md, schema_version 1): the suspects first, then every node, metric
// row and topology field; with --history, `changed_since`. A pure function of the report and `generated_at`:
// same inputs, same bytes.
#include "placebench/harness/evidence.h"
#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json pair_or_null(const std::optional<double>& a, const std::optional<double>& b) {
  return a && b ? json::array({*a, *b}) : json(nullptr);
}

json metric_json(const MetricRow& row) {
  json nodes = json::array();
  for (const NodeMetric& m : row.nodes)
    nodes.push_back({{"host", m.host},
                     {"value", m.value},
                     {"ci", {m.ci_lo, m.ci_hi}},
                     {"ci_confidence", m.ci_confidence},
                     {"rounds", m.rounds},
                     {"fleet_median", opt(m.fleet_median)},
                     {"ratio", opt(m.ratio)},
                     {"ratio_ci", pair_or_null(m.ratio_lo, m.ratio_hi)},
                     {"slowdown_pct", opt(m.slowdown_pct)},
                     {"slowdown_ci_pct", pair_or_null(m.slowdown_lo_pct, m.slowdown_hi_pct)},
                     {"status", m.status}});
  return {{"class", row.class_name}, {"arm", row.arm},   {"gpu", row.gpu},        {"statistic", row.statistic},
          {"unit", row.unit},        {"nodes", nodes},   {"missing", row.missing}};
}

json checks_json(const check::CheckReport& report) {
  json out = json::array();
  for (const check::CheckResult& c : report.checks)
    out.push_back({{"name", c.name}, {"kind", c.kind}, {"passed", c.passed}, {"expected", c.expected},
                   {"actual", c.actual}, {"message", c.message}});
  return out;
}

json node_json(const NodeRun& n, const NodeVerdict& v) {
  json topo = json::object();
  for (const auto& [k, value] : n.topology.fields) topo[k] = value;
  json j{{"host", n.host},         {"dir", n.dir},       {"start_time", n.start_time}, {"duration_s", n.duration_s},
         {"complete", n.complete}, {"status", v.suspect ? "suspect" : "pass"},         {"reasons", v.reasons},
         {"notes", n.notes},       {"topology", topo}};
  if (!v.checks.reference_path.empty() || !v.checks.checks.empty()) j["checks"] = checks_json(v.checks);
  return j;
}

json opt_text(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

// --history: {db, series: [...]}, each series' latest figure against its stable level and its last change.
json changed_since_json(const FleetHistory& h) {
  json series = json::array();
  for (const ChangedSince& c : h.series) {
    json last = nullptr;
    if (c.last_change)
      last = {{"run", c.last_change->run_key},      {"start", opt_text(c.last_change->start)},
              {"change_pct", c.last_change->change_pct}, {"attribution", opt_text(c.last_change->attribution)},
              {"fleet", c.last_change->fleet}};
    series.push_back({{"host", c.host},           {"class", c.class_name},         {"arm", c.arm},
                      {"metric", c.metric},       {"unit", c.unit},                {"status", c.status},
                      {"run", c.run_key},         {"start", opt_text(c.run_start)}, {"value", c.latest},
                      {"level", opt(c.level)},    {"segment_runs", c.segment_runs}, {"change_pct", opt(c.change_pct)},
                      {"last_change", last}});
  }
  return {{"db", h.db}, {"series", series}};
}

}  // namespace

json fleet_to_json(const FleetReport& r, const std::string& generated_at) {
  json j;
  j["schema_version"] = kFleetSchemaVersion;
  j["kind"] = "placebench-fleet";
  Evidence ev = current_evidence();
  ev.generated_at = generated_at;
  stamp_evidence(j, ev);
  j["tolerance_pct"] = r.options.tolerance_pct;
  j["reference"] = r.options.reference ? json(r.options.reference->path) : json(nullptr);
  j["suspects"] = json::array();
  for (const Suspect& s : r.suspects)
    j["suspects"].push_back({{"host", s.host}, {"severity_pct", s.severity_pct}, {"reasons", s.reasons}});
  j["nodes"] = json::array();
  for (std::size_t i = 0; i < r.input.nodes.size(); ++i) j["nodes"].push_back(node_json(r.input.nodes[i], r.verdicts[i]));
  j["metrics"] = json::array();
  for (const MetricRow& row : r.metrics) j["metrics"].push_back(metric_json(row));
  j["topology"] = json::array();
  for (const TopologyField& t : r.topology) {
    json mism = json::array();
    for (const auto& [host, value] : t.mismatches) mism.push_back({{"host", host}, {"value", value}});
    j["topology"].push_back({{"field", t.name},
                             {"fleet_value", t.fleet_value.empty() ? json(nullptr) : json(t.fleet_value)},
                             {"holders", t.holders},
                             {"mismatches", mism}});
  }
  j["skipped"] = json::array();
  for (const SkippedRun& s : r.input.skipped) j["skipped"].push_back({{"dir", s.dir}, {"host", s.host}, {"reason", s.reason}});
  j["warnings"] = r.warnings;
  if (r.history) j["changed_since"] = changed_since_json(*r.history);
  return j;
}

}  // namespace placebench::harness::fleet
