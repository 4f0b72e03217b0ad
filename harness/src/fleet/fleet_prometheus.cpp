// The fleet report in the Prometheus text exposition format, for node_exporter's textfile collector
// (docs/fleet.md): per node its verdict, per class/arm/GPU its statistic, fleet median and ratio, the
// run's own verdicts and ratios against its baseline, the --reference checks, and with --history each series'
// change since its stable level and its last change point. Every family has its
// HELP and TYPE lines and its samples together; label values are escaped (\\, \", \n).
#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {
namespace {

std::string label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string sample(const std::string& name, const Labels& labels, double value) {
  std::string l;
  for (const auto& [k, v] : labels) l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, label_value(v));
  std::string number = std::isnan(value) ? "NaN" : std::isinf(value) ? (value > 0 ? "+Inf" : "-Inf") : fmt::format("{}", value);
  return l.empty() ? fmt::format("{} {}\n", name, number) : fmt::format("{}{{{}}} {}\n", name, l, number);
}

class Families {
 public:
  // One family: HELP, TYPE gauge, then every sample `emit` gives.
  void add(const std::string& name, const std::string& help, const std::function<void(std::string&)>& emit) {
    std::string body;
    emit(body);
    if (body.empty()) return;
    text_ += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name) + body;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

Labels metric_labels(const std::string& host, const MetricRow& row) {
  return {{"host", host}, {"class", row.class_name}, {"arm", row.arm}, {"gpu", row.gpu}, {"statistic", row.statistic}};
}

void fleet_families(const FleetReport& r, Families& f) {
  f.add("placebench_fleet_nodes", "Nodes read by placebench fleet.",
        [&](std::string& o) { o += sample("placebench_fleet_nodes", {}, static_cast<double>(r.input.nodes.size())); });
  f.add("placebench_fleet_tolerance_ratio", "Tolerance of the fleet comparison (0.1 = 10%).",
        [&](std::string& o) { o += sample("placebench_fleet_tolerance_ratio", {}, r.options.tolerance_pct / 100); });
  f.add("placebench_fleet_node_suspect", "1 when the fleet view flags the node (slower than its peers, topology, missing result, unreadable run, failed check).",
        [&](std::string& o) {
          for (const NodeVerdict& v : r.verdicts) o += sample("placebench_fleet_node_suspect", {{"host", v.host}}, v.suspect ? 1 : 0);
          for (const SkippedRun& s : r.unreadable)
            o += sample("placebench_fleet_node_suspect", {{"host", s.host.empty() ? s.dir : s.host}}, 1);
        });
  f.add("placebench_fleet_node_reasons", "Reasons the node is a suspect (0 when it passes).", [&](std::string& o) {
    for (const NodeVerdict& v : r.verdicts)
      o += sample("placebench_fleet_node_reasons", {{"host", v.host}}, static_cast<double>(v.reasons.size()));
  });
  f.add("placebench_fleet_run_start_timestamp_seconds", "Start of the node's run used (run.json start_time), Unix seconds.",
        [&](std::string& o) {
          for (const NodeRun& n : r.input.nodes)
            if (n.start_epoch_s) o += sample("placebench_fleet_run_start_timestamp_seconds", {{"host", n.host}}, *n.start_epoch_s);
        });
  f.add("placebench_fleet_statistic", "The node's class statistic over rounds (median of the per-trial statistic; ns for median and p99, steps/s for throughput).",
        [&](std::string& o) {
          for (const MetricRow& row : r.metrics)
            for (const NodeMetric& m : row.nodes) o += sample("placebench_fleet_statistic", metric_labels(m.host, row), m.value);
        });
  f.add("placebench_fleet_peer_median", "Median of the same statistic over the other nodes (leave-one-out).", [&](std::string& o) {
    for (const MetricRow& row : r.metrics)
      for (const NodeMetric& m : row.nodes)
        if (m.fleet_median) o += sample("placebench_fleet_peer_median", metric_labels(m.host, row), *m.fleet_median);
  });
  f.add("placebench_fleet_ratio", "The node's statistic divided by its peers' median.", [&](std::string& o) {
    for (const MetricRow& row : r.metrics)
      for (const NodeMetric& m : row.nodes)
        if (m.ratio) o += sample("placebench_fleet_ratio", metric_labels(m.host, row), *m.ratio);
  });
  f.add("placebench_fleet_slowdown_ratio", "Change of step time against the peers (0.3 = 30% slower; throughput inverted).",
        [&](std::string& o) {
          for (const MetricRow& row : r.metrics)
            for (const NodeMetric& m : row.nodes)
              if (m.slowdown_pct) o += sample("placebench_fleet_slowdown_ratio", metric_labels(m.host, row), *m.slowdown_pct / 100);
        });
  f.add("placebench_fleet_metric_slower", "1 when the node is slower than its peers beyond the tolerance, CI included.",
        [&](std::string& o) {
          for (const MetricRow& row : r.metrics)
            for (const NodeMetric& m : row.nodes)
              o += sample("placebench_fleet_metric_slower", metric_labels(m.host, row), m.status == "slower" ? 1 : 0);
        });
}

void run_families(const FleetReport& r, Families& f) {
  auto each_arm = [&](const std::function<void(const NodeRun&, const ClassAnalysis&, const ArmAnalysis&, const Labels&, std::string&)>& fn) {
    return [&r, fn](std::string& o) {
      for (const NodeRun& n : r.input.nodes)
        for (std::size_t c = 0; c < n.classes.size(); ++c)
          for (const ArmAnalysis& a : n.classes[c].arms)
            fn(n, n.classes[c], a, {{"host", n.host}, {"class", n.classes[c].name}, {"arm", a.arm}, {"gpu", n.gpu_of_class[c]}}, o);
    };
  };
  f.add("placebench_run_verdict", "The run's own verdict of the arm against its baseline (1 for the verdict it reached).",
        each_arm([](const NodeRun&, const ClassAnalysis&, const ArmAnalysis& a, Labels l, std::string& o) {
          l.emplace_back("verdict", a.verdict);
          o += sample("placebench_run_verdict", l, 1);
        }));
  f.add("placebench_run_ratio", "The run's ratio of the arm's class statistic to its baseline's (Hodges-Lehmann estimate; 1.05 = +5%).",
        each_arm([](const NodeRun&, const ClassAnalysis&, const ArmAnalysis& a, const Labels& l, std::string& o) {
          if (a.compared) o += sample("placebench_run_ratio", l, 1 + a.ratio_pct / 100);
        }));
  f.add("placebench_run_complete", "1 when the node's run finished its plan.", [&](std::string& o) {
    for (const NodeRun& n : r.input.nodes) o += sample("placebench_run_complete", {{"host", n.host}}, n.complete ? 1 : 0);
  });
  f.add("placebench_check_passed", "1 when the node passed the --reference check, 0 when it failed.", [&](std::string& o) {
    for (const NodeVerdict& v : r.verdicts)
      for (const check::CheckResult& c : v.checks.checks)
        o += sample("placebench_check_passed", {{"host", v.host}, {"class", c.class_name}, {"check", c.name}}, c.passed ? 1 : 0);
  });
}

// --history: per node x class x arm x metric of the store, the latest figure against its stable level and
// the last change point (none of these families without it).
void history_families(const FleetReport& r, Families& f) {
  if (!r.history) return;
  const auto labels = [](const ChangedSince& c) {
    return Labels{{"host", c.host}, {"class", c.class_name}, {"arm", c.arm}, {"metric", c.metric}};
  };
  const std::vector<ChangedSince>& series = r.history->series;
  f.add("placebench_fleet_changed_since_ratio",
        "The node's latest stored figure against its own last stable level in the history store (0.05 = +5%).",
        [&](std::string& o) {
          for (const ChangedSince& c : series)
            if (c.change_pct) o += sample("placebench_fleet_changed_since_ratio", labels(c), *c.change_pct / 100);
        });
  f.add("placebench_fleet_stable_level", "The level of the series' last stable segment before the latest run (its unit).",
        [&](std::string& o) {
          for (const ChangedSince& c : series)
            if (c.level) o += sample("placebench_fleet_stable_level", labels(c), *c.level);
        });
  f.add("placebench_fleet_last_change_timestamp_seconds",
        "Start of the first run of the series' last detected change of level (history changes), Unix seconds.",
        [&](std::string& o) {
          for (const ChangedSince& c : series)
            if (c.last_change && c.last_change->start_epoch_s)
              o += sample("placebench_fleet_last_change_timestamp_seconds", labels(c), *c.last_change->start_epoch_s);
        });
  f.add("placebench_fleet_last_change_ratio", "Size of that change: level after / level before - 1 (0.05 = +5%).",
        [&](std::string& o) {
          for (const ChangedSince& c : series)
            if (c.last_change) o += sample("placebench_fleet_last_change_ratio", labels(c), c.last_change->change_pct / 100);
        });
}

}  // namespace

std::string render_fleet_prometheus(const FleetReport& r) {
  Families f;
  fleet_families(r, f);
  run_families(r, f);
  history_families(r, f);
  return f.text();
}

}  // namespace placebench::harness::fleet
