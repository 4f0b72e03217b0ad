// `check --init-reference`: a reference file from known-good runs (init_reference.h). Robust by
// construction: the target is the median over runs of each run's median over rounds, and the tolerance is
// the hull of the runs' CIs over rounds around it (no mean, no trimming), never below the floor.
#include "placebench/harness/check/init_reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/stats/comparison.h"
#include "placebench/stats/quantile.h"

namespace placebench::harness::check {
namespace {

struct ArmSeen {
  std::string statistic, unit;
  std::vector<double> values, ci_lo, ci_hi;
  std::vector<double> slow_end_pct;  // per run: the slow end of the ratio CI, as a change of step time
  bool compared = false;
};

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// Rounded outward to 0.1%, so the written band holds what it was computed from.
double up(double fraction) { return std::ceil(fraction * 1000 - 1e-9) / 1000; }

std::vector<ClassAnalysis> classes_of(const std::string& dir) {
  RunEvidence ev = load_run_evidence(dir);
  if (ev.node_check)
    throw InputError(fmt::format("{}: a GPU node check's output; --init-reference reads run directories (`placebench run`)", dir));
  RunSummary& s = *ev.summary;  // summary.json through its one reader, or recomputed from the trials
  if (!s.complete)
    throw InputError(fmt::format("{}: the run is not complete (interrupted); finish it with `placebench run --resume {}` or "
                                 "leave it out: a reference comes from known-good, complete runs", dir, dir));
  return std::move(s.classes);
}

}  // namespace

std::string make_reference_yaml(const std::vector<std::string>& runs, const InitReferenceOptions& options) {
  if (runs.empty()) throw InputError("--init-reference: give at least one run directory");
  std::map<std::pair<std::string, std::string>, ArmSeen> seen;  // (class, arm)
  std::vector<std::pair<std::string, std::string>> order;
  for (const std::string& dir : runs)
    for (const ClassAnalysis& c : classes_of(dir))
      for (const ArmAnalysis& a : c.arms) {
        if (a.role == "control" || a.role == "unrealised" || !a.has_statistic) continue;  // check refuses them
        auto key = std::make_pair(c.name, a.arm);
        if (!seen.count(key)) order.push_back(key);
        ArmSeen& s = seen[key];
        s.statistic = c.statistic;
        s.unit = c.statistic_unit;
        s.values.push_back(a.statistic_value);
        s.ci_lo.push_back(a.statistic_ci_lo);
        s.ci_hi.push_back(a.statistic_ci_hi);
        if (a.compared) {
          s.compared = true;
          bool throughput = c.statistic == "throughput";
          s.slow_end_pct.push_back(std::max(stats::step_time_pct(a.ratio_lo, throughput), stats::step_time_pct(a.ratio_hi, throughput)));
        }
      }
  if (order.empty())
    throw InputError(fmt::format("{}: no realised arm with a statistic in these runs; nothing to make a reference of", runs.front()));
  const double floor = options.min_tolerance_pct / 100;
  std::string refs, expects;
  for (const auto& key : order) {
    const ArmSeen& s = seen.at(key);
    double target = stats::median(s.values);
    double lower = std::min(-floor, *std::min_element(s.ci_lo.begin(), s.ci_lo.end()) / target - 1);
    double upper = std::max(floor, *std::max_element(s.ci_hi.begin(), s.ci_hi.end()) / target - 1);
    const std::string metric = s.statistic == "throughput" ? "trials.throughput_steps_s" : s.statistic == "p99" ? "trials.p99_ns" : "trials.median_ns";
    const std::string unit = s.statistic == "throughput" ? "steps/s" : "ns";
    refs += fmt::format("  - {{class: {}, arm: {}, metric: {}, target: {:.7g}, lower: {:.3f}, upper: {:.3f}, unit: {}}}  # {} run(s)\n",
                        quoted(key.first), quoted(key.second), metric, target, -up(-std::max(-1.0, lower)), up(upper),
                        quoted(unit), s.values.size());
    if (s.compared && !s.slow_end_pct.empty()) {
      double limit = std::max(0.0, *std::max_element(s.slow_end_pct.begin(), s.slow_end_pct.end())) + options.min_tolerance_pct;
      expects += fmt::format("  - {{class: {}, arm: {}, max_slower_pct: {:.1f}}}\n", quoted(key.first), quoted(key.second),
                             std::ceil(limit * 10) / 10);
    }
  }
  std::string out = options.header;
  out += fmt::format("# Made by `placebench check --init-reference` (placebench {}) at {} from {} run(s):\n",
                     current_evidence().placebench_version, utc_timestamp_now(), runs.size());
  for (const std::string& r : runs) out += "#   " + r + "\n";
  out += fmt::format("# references: per class and arm the class statistic over rounds (trials.<statistic>, the median\n"
                     "# over trials); target = the median over the runs, band = every run's CI over rounds around it, at\n"
                     "# least +-{:g}%. expectations: the slowest end any run's ratio CI reached against the baseline, plus\n"
                     "# {:g} points. A/A control and unrealised arms are left out (check cannot judge them). docs/reports.md\n",
                     options.min_tolerance_pct, options.min_tolerance_pct);
  out += "schema_version: 1\nrequire_complete: true\nreferences:\n" + refs;
  if (!expects.empty()) out += "expectations:\n" + expects;
  return out;
}

}  // namespace placebench::harness::check
