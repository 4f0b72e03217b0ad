// Run analysis (see analysis.h). Method and sources: docs/statistics.md.
#include "placebench/harness/runner/analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "placebench/harness/runner/trial.h"
#include "placebench/harness/stats/quantile.h"
#include "placebench/harness/stats/sequential.h"
#include "placebench/harness/stats/verdict.h"

namespace placebench::harness {
namespace {

// round -> trial line, for one class and arm (a resumed run never repeats a slot).
using RoundMap = std::map<int, const nlohmann::json*>;

void pooled_quantiles(const RoundMap& rounds, ArmAnalysis& a) {
  std::vector<double> steps;
  for (const auto& [r, t] : rounds)
    for (const auto& s : t->at("step_ns")) steps.push_back(std::max(1.0, s.get<double>()));
  if (steps.empty()) return;
  auto s = stats::summarize(std::move(steps), 0.95);
  a.measured = true;
  a.median_ns = s.median.estimate;
  a.median_ci_lo = s.median.lower;
  a.median_ci_hi = s.median.upper;
  a.p90_ns = s.p90.estimate;
  a.p99_ns = s.p99.estimate;
  a.mean_ns = s.mean;
}

void compare_to_baseline(const ExperimentConfig& cfg, const ClassConfig& cls, const RoundMap& base, const RoundMap& arm,
                         ArmAnalysis& a) {
  std::vector<double> b, x;
  for (const auto& [round, t] : arm) {
    auto it = base.find(round);
    if (it == base.end()) continue;
    b.push_back(trial_statistic(*it->second, cls.statistic));
    x.push_back(trial_statistic(*t, cls.statistic));
  }
  a.n_rounds = static_cast<int>(x.size());
  if (x.size() < 2) return;
  stats::SequentialPlan plan{cfg.min_rounds, cfg.max_rounds, cfg.confidence, static_cast<int>(cfg.classes.size()),
                             cls.margin_pct, cfg.target_half_width_pct, cls.statistic == Statistic::kThroughput};
  stats::Look look = stats::evaluate_look(b, x, plan);
  a.compared = true;
  a.look_confidence = look.confidence;
  a.ratio_pct = look.comparison.ratio_pct.estimate;
  a.ratio_lo = look.comparison.ratio_pct.lower;
  a.ratio_hi = look.comparison.ratio_pct.upper;
  a.half_width = look.comparison.ratio_pct.half_width;
  a.p_value = look.comparison.wilcoxon.p_value;
  a.verdict = std::string(stats::to_string(look.verdict));
  a.stop = look.decision.stop;
  a.stop_reason = std::string(stats::to_string(look.decision.reason));
}

}  // namespace

std::vector<ClassAnalysis> analyze_run(const ExperimentConfig& cfg, const std::vector<nlohmann::json>& trials) {
  std::vector<ClassAnalysis> out;
  for (const ClassConfig& cls : cfg.classes) {
    std::map<std::string, RoundMap> by_arm;
    std::map<std::string, int> flagged;
    for (const auto& t : trials) {
      if (t.value("class", "") != cls.name) continue;
      by_arm[t.at("arm")][t.at("round").get<int>()] = &t;
      if (!t.value("flags", nlohmann::json::array()).empty()) flagged[t.at("arm")]++;
    }
    ClassAnalysis ca{cls.name, arm_name(cls.baseline), statistic_name(cls.statistic), cls.margin_pct, 0, {}, true, 1};
    const RoundMap& base = by_arm[ca.baseline];
    ca.rounds_done = static_cast<int>(base.size());
    for (Arm arm : cls.arms()) {
      ArmAnalysis a;
      a.arm = arm_name(arm);
      const RoundMap& rounds = by_arm[a.arm];
      ca.rounds_done = std::min(ca.rounds_done, static_cast<int>(rounds.size()));
      pooled_quantiles(rounds, a);
      a.flagged_trials = flagged[a.arm];
      if (arm == cls.baseline) {
        a.n_rounds = static_cast<int>(rounds.size());
        a.verdict = "baseline";
      } else {
        compare_to_baseline(cfg, cls, base, rounds, a);
        ca.stop = ca.stop && a.stop;
      }
      ca.arms.push_back(a);
    }
    out.push_back(std::move(ca));
  }
  // Holm across classes on each class's smallest p-value (reported beside the Bonferroni-level CIs).
  std::vector<double> p;
  for (const auto& c : out) {
    double m = 1;
    for (const auto& a : c.arms)
      if (a.compared) m = std::min(m, a.p_value);
    p.push_back(m);
  }
  if (!p.empty()) {
    auto holm = stats::holm_adjust(p, 1 - cfg.confidence);
    for (std::size_t i = 0; i < out.size(); ++i) out[i].holm_adjusted_p = holm.adjusted_p[i];
  }
  return out;
}

bool plan_finished(const ExperimentConfig& cfg, const std::vector<ClassAnalysis>& classes) {
  return std::all_of(classes.begin(), classes.end(), [&](const ClassAnalysis& c) {
    return c.rounds_done >= cfg.max_rounds || (c.stop && c.rounds_done >= cfg.min_rounds);
  });
}

}  // namespace placebench::harness
