// The fleet's judgement (fleet.h, docs/fleet.md): metric rows per class, arm and GPU, the topology
// comparison, reference checks, and the ranked suspects with their reasons.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {
namespace {

using RowKey = std::tuple<std::string, std::string, std::string, std::string>;  // class, arm, gpu, statistic

std::string row_name(const MetricRow& r) {
  return fmt::format("{}/{} gpu {}", r.class_name, r.arm, r.gpu);
}

std::vector<MetricRow> build_rows(const std::vector<NodeRun>& nodes, const FleetOptions& options) {
  const double tolerance_pct = options.tolerance_pct;
  std::map<RowKey, MetricRow> rows;
  for (const NodeRun& n : nodes)
    for (std::size_t c = 0; c < n.classes.size(); ++c) {
      const ClassAnalysis& cls = n.classes[c];
      for (const ArmAnalysis& a : cls.arms) {
        if (!a.has_statistic || !metric_selected(options.metrics, cls.name, a.arm)) continue;
        MetricRow& row = rows[{cls.name, a.arm, n.gpu_of_class[c], cls.statistic}];
        row.class_name = cls.name;
        row.arm = a.arm;
        row.gpu = n.gpu_of_class[c];
        row.statistic = cls.statistic;
        row.unit = cls.statistic_unit;
        NodeMetric m;
        m.host = n.host;
        m.value = a.statistic_value;
        m.ci_lo = a.statistic_ci_lo;
        m.ci_hi = a.statistic_ci_hi;
        m.ci_confidence = a.statistic_ci_confidence;
        m.rounds = a.n_rounds;
        row.nodes.push_back(m);
      }
    }
  std::vector<MetricRow> out;
  for (auto& [key, row] : rows) {
    std::sort(row.nodes.begin(), row.nodes.end(), [](const NodeMetric& a, const NodeMetric& b) { return a.host < b.host; });
    std::vector<double> values;
    for (const NodeMetric& m : row.nodes) values.push_back(m.value);
    auto loo = leave_one_out_medians(values);
    for (std::size_t i = 0; i < row.nodes.size(); ++i) {
      row.nodes[i].fleet_median = loo[i];
      judge_against_fleet(row.nodes[i], row.statistic == "throughput", tolerance_pct);
    }
    std::set<std::string> have;
    for (const NodeMetric& m : row.nodes) have.insert(m.host);
    for (const NodeRun& n : nodes)
      if (!have.count(n.host)) row.missing.push_back(n.host);
    out.push_back(std::move(row));
  }
  return out;
}

std::string pct(double v) { return fmt::format("{:+.1f}%", v); }

struct Findings {
  std::map<std::string, std::vector<std::string>> reasons;
  std::map<std::string, double> severity;
};

void metric_findings(const FleetReport& r, Findings& f, std::vector<std::string>& warnings) {
  const std::size_t n_nodes = r.input.nodes.size();
  for (const MetricRow& row : r.metrics) {
    for (const NodeMetric& m : row.nodes) {
      if (m.status == "slower") {
        f.reasons[m.host].push_back(fmt::format(
            "{}: {} {} slower than the fleet median of its {} peers (CI {} .. {} over {} rounds; tolerance {:g}%)",
            row_name(row), row.statistic == "throughput" ? "step time (from throughput)" : row.statistic, pct(*m.slowdown_pct), row.nodes.size() - 1, pct(*m.slowdown_lo_pct),
            pct(*m.slowdown_hi_pct), m.rounds, r.options.tolerance_pct));
        f.severity[m.host] = std::max(f.severity[m.host], *m.slowdown_pct);
      } else if (m.status == "faster") {
        warnings.push_back(fmt::format("{}: {} is {} faster than its peers (CI {} .. {}): not a suspect, but check that it "
                                       "ran what the others ran",
                                       m.host, row_name(row), pct(-*m.slowdown_pct), pct(-*m.slowdown_hi_pct),
                                       pct(-*m.slowdown_lo_pct)));
      }
    }
    if (row.missing.empty()) continue;
    if (2 * row.nodes.size() > n_nodes) {
      for (const std::string& host : row.missing)
        f.reasons[host].push_back(fmt::format("{}: no result, which {} of {} nodes have (an arm not measured or not "
                                              "realised here, or another config)",
                                              row_name(row), row.nodes.size(), n_nodes));
    } else {
      warnings.push_back(fmt::format("{}: measured on {} of {} nodes only; its comparison covers those", row_name(row),
                                     row.nodes.size(), n_nodes));
    }
  }
}

void topology_findings(const FleetReport& r, Findings& f) {
  const std::size_t n_nodes = r.input.nodes.size();
  for (const TopologyField& t : r.topology)
    for (const auto& [host, value] : t.mismatches)
      f.reasons[host].push_back(
          t.fleet_value.empty()
              ? fmt::format("topology: {} is '{}'; the nodes do not agree on it (no value on most nodes)", t.name, value)
              : fmt::format("topology: {} is '{}', the fleet's is '{}' ({} of {} nodes)", t.name, value, t.fleet_value,
                            t.holders, n_nodes));
}

// A skipped run of a host that has a readable run is a warning; a host with none is a suspect, once
// however many of its runs were skipped (one entry in `unreadable`, the last by directory name, so no
// printer writes a host twice), with every run's reason.
void unreadable_findings(FleetReport& r, Findings& f) {
  std::set<std::string> read_hosts;
  for (const NodeRun& n : r.input.nodes) read_hosts.insert(n.host);
  std::map<std::string, std::size_t> entry_of;  // host (or dir) -> index in r.unreadable
  for (const SkippedRun& s : r.input.skipped) {
    if (!s.host.empty() && read_hosts.count(s.host)) {
      r.warnings.push_back(fmt::format("{}: skipped ({}); another run of {} was used", s.dir, s.reason, s.host));
      continue;
    }
    const std::string key = s.host.empty() ? s.dir : s.host;
    f.reasons[key].push_back("results unreadable, skipped: " + s.reason);
    auto [it, fresh] = entry_of.emplace(key, r.unreadable.size());
    if (fresh) r.unreadable.push_back(s);
    else r.unreadable[it->second] = s;  // skipped is sorted by dir: the last is kept
  }
}

// A host whose ranks set the pace (were waited for, beyond the clocks' uncertainty) in more than half of
// the fleet's collective trials, and in at least kMinPaceTrials of them, is a suspect.
void pace_findings(const FleetReport& r, Findings& f) {
  constexpr int kMinPaceTrials = 3;
  int trials = 0;
  std::map<std::string, int> named;
  for (const NodeRun& n : r.input.nodes) {
    trials += n.pace_trials;
    for (const auto& [host, count] : n.pace_setter_hosts) named[host] += count;
  }
  for (const auto& [host, count] : named)
    if (count >= kMinPaceTrials && 2 * count > trials)
      f.reasons[host].push_back(fmt::format("collective: its ranks set the pace (the others waited for them beyond the "
                                            "clocks' uncertainty) in {} of the fleet's {} collective trials",
                                            count, trials));
}

}  // namespace

FleetReport analyze_fleet(FleetInput input, const FleetOptions& options) {
  FleetReport r;
  r.options = options;
  r.input = std::move(input);
  require_comparable(r.input.nodes, options);
  r.metrics = build_rows(r.input.nodes, options);
  std::vector<std::pair<std::string, TopologyPrint>> prints;
  for (const NodeRun& n : r.input.nodes) prints.emplace_back(n.host, n.topology);
  r.topology = compare_topologies(prints);
  if (r.input.nodes.size() < 2)
    r.warnings.push_back("one node only: nothing to compare it against; give the run directories of every node");

  Findings f;
  metric_findings(r, f, r.warnings);
  topology_findings(r, f);
  unreadable_findings(r, f);
  pace_findings(r, f);
  for (const NodeRun& n : r.input.nodes) {
    NodeVerdict v;
    v.host = n.host;
    if (options.reference && n.evidence) {
      v.checks = check::evaluate_checks(*options.reference, *n.evidence);
      for (const check::CheckResult& c : v.checks.checks)
        if (!c.passed) f.reasons[n.host].push_back(fmt::format("check '{}' failed: {}", c.name, c.message));
    }
    r.verdicts.push_back(std::move(v));
  }
  for (NodeVerdict& v : r.verdicts) {
    v.reasons = f.reasons[v.host];
    v.suspect = !v.reasons.empty();
  }
  for (const auto& [host, reasons] : f.reasons)
    if (!reasons.empty()) r.suspects.push_back({host, f.severity[host], reasons});
  std::sort(r.suspects.begin(), r.suspects.end(), [](const Suspect& a, const Suspect& b) {
    if (a.severity_pct != b.severity_pct) return a.severity_pct > b.severity_pct;
    if (a.reasons.size() != b.reasons.size()) return a.reasons.size() > b.reasons.size();
    return a.host < b.host;
  });
  return r;
}

}  // namespace placebench::harness::fleet
