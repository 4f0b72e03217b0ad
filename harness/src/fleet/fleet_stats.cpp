// The fleet's statistics on plain numbers (fleet.h, docs/fleet.md): leave-one-out medians, the ratio of a
// node to its peers with a CI, and topology prints compared field by field.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {

std::vector<std::optional<double>> leave_one_out_medians(const std::vector<double>& values) {
  std::vector<std::optional<double>> out(values.size());
  if (values.size() < 2) return out;
  // The others of i are the sorted values without one copy of values[i]: n-1 values, so their median is
  // one or two order statistics of the whole, shifted by one past i's rank. O(n log n) for the fleet.
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t m = values.size() - 1;
  auto others_at = [&](std::size_t k, std::size_t rank) { return sorted[k < rank ? k : k + 1]; };
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto rank = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), values[i]) - sorted.begin());
    if (m % 2) {
      out[i] = others_at(m / 2, rank);
      continue;
    }
    // An even number of others: every value between the middle pair is a median of them; the one nearest
    // the node is taken (the node itself when it lies between them, else the nearer member). The pair's
    // mean would let one outlier among three nodes move both its peers' reference halfway towards
    // itself; the nearer member alone would judge a node between two peers against the faster one and
    // call it slow when the other peer is the outlier.
    double lo = others_at(m / 2 - 1, rank), hi = others_at(m / 2, rank);
    out[i] = std::clamp(values[i], lo, hi);
  }
  return out;
}

namespace {

// Percent change of step time for a ratio of the statistic: a time is the step time; a throughput's
// step time scales as 1 / throughput.
double slowdown_of(double ratio, bool throughput) {
  if (!throughput) return (ratio - 1) * 100;
  return ratio > 0 ? (1 / ratio - 1) * 100 : std::numeric_limits<double>::infinity();
}

}  // namespace

void judge_against_fleet(NodeMetric& m, bool throughput, double tolerance_pct) {
  if (!m.fleet_median || !(*m.fleet_median > 0)) {
    m.status = "no peers";
    return;
  }
  const double f = *m.fleet_median;
  m.ratio = m.value / f;
  m.ratio_lo = m.ci_lo / f;
  m.ratio_hi = m.ci_hi / f;
  m.slowdown_pct = slowdown_of(*m.ratio, throughput);
  double a = slowdown_of(*m.ratio_lo, throughput), b = slowdown_of(*m.ratio_hi, throughput);
  m.slowdown_lo_pct = std::min(a, b);
  m.slowdown_hi_pct = std::max(a, b);
  if (*m.slowdown_pct > tolerance_pct && *m.slowdown_lo_pct > tolerance_pct)
    m.status = "slower";
  else if (*m.slowdown_pct < -tolerance_pct && *m.slowdown_hi_pct < -tolerance_pct)
    m.status = "faster";
  else
    m.status = "ok";
}

namespace {

std::string node_text(int node) { return node < 0 ? "-" : std::to_string(node); }

// "k:v,k:v" of (key, value) pairs, sorted by key (NICs by name, GPUs by index as a number).
std::string map_print(std::vector<std::pair<std::string, std::string>> entries, bool numeric_key) {
  std::sort(entries.begin(), entries.end(), [numeric_key](const auto& x, const auto& y) {
    if (numeric_key && x.first.size() != y.first.size()) return x.first.size() < y.first.size();
    return x < y;
  });
  std::string out;
  for (const auto& [k, v] : entries) out += (out.empty() ? "" : ",") + k + ":" + v;
  return out.empty() ? "none" : out;
}

std::string models_print(const std::vector<GpuInfo>& gpus) {
  std::map<std::string, int> count;
  for (const GpuInfo& g : gpus) ++count[g.name];
  std::string out;
  for (const auto& [name, n] : count) out += fmt::format("{}{}x {}", out.empty() ? "" : ", ", n, name);
  return out.empty() ? "none" : out;
}

}  // namespace

TopologyPrint topology_print(const std::optional<Inventory>& topo) {
  TopologyPrint p;
  if (!topo) {  // no topology recorded: every field unknown, not "none" or "0"
    for (const char* name : {"gpus", "gpu_numa", "nic_numa", "numa_nodes", "cores", "pus"}) p.fields.emplace_back(name, kUnknownValue);
    return p;
  }
  std::vector<std::pair<std::string, std::string>> gpu_numa, nic_numa;
  for (const GpuInfo& g : topo->gpus) gpu_numa.emplace_back(std::to_string(g.index), node_text(g.numa_node));
  for (const NicInfo& n : topo->nics) nic_numa.emplace_back(n.name, node_text(n.numa_node));
  p.fields = {{"gpus", models_print(topo->gpus)},
              {"gpu_numa", map_print(std::move(gpu_numa), true)},
              {"nic_numa", map_print(std::move(nic_numa), false)},
              {"numa_nodes", std::to_string(topo->numa_nodes.size())},
              {"cores", std::to_string(topo->cores)},
              {"pus", std::to_string(topo->pus)}};
  return p;
}

std::vector<TopologyField> compare_topologies(const std::vector<std::pair<std::string, TopologyPrint>>& prints) {
  std::vector<TopologyField> out;
  if (prints.empty()) return out;
  for (std::size_t f = 0; f < prints.front().second.fields.size(); ++f) {
    TopologyField field;
    field.name = prints.front().second.fields[f].first;
    // Nodes that do not know the field (no topology in run.json) neither vote nor differ: most runs
    // without a topology must not make "?" the fleet's value and flag the node that has one.
    std::map<std::string, int> count;
    for (const auto& [host, p] : prints)
      if (p.fields.at(f).second != kUnknownValue) ++count[p.fields.at(f).second];
    int best = 0, at_best = 0;
    for (const auto& [value, n] : count) {
      if (n > best) {
        best = n;
        at_best = 1;
        field.fleet_value = value;
      } else if (n == best) {
        ++at_best;
      }
    }
    if (at_best > 1) field.fleet_value.clear();  // no value holds a plurality: every node is named
    field.holders = field.fleet_value.empty() ? 0 : best;
    for (const auto& [host, p] : prints)
      if (p.fields.at(f).second != field.fleet_value && p.fields.at(f).second != kUnknownValue)
        field.mismatches.emplace_back(host, p.fields.at(f).second);
    out.push_back(std::move(field));
  }
  return out;
}

}  // namespace placebench::harness::fleet
