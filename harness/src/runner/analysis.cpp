// Run analysis (see analysis.h). Method and sources: docs/statistics.md.
#include "placebench/harness/runner/analysis.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <span>

#include "placebench/harness/runner/trial.h"
#include "placebench/stats/group_sequential.h"
#include "placebench/stats/quantile.h"
#include "placebench/stats/rank_tests.h"
#include "placebench/stats/sequential.h"
#include "placebench/stats/verdict.h"

namespace placebench::harness {
namespace {

// round -> trial line, for one class and arm (a resumed run never repeats a slot).
using RoundMap = std::map<int, const TrialRecord*>;

constexpr double kArmCiConfidence = 0.95;  // per-arm CI of the class statistic over rounds

void pooled_quantiles(const RoundMap& rounds, ArmAnalysis& a) {
  std::vector<double> steps;
  for (const auto& [r, t] : rounds)
    for (double s : t->step_ns) steps.push_back(std::max(1.0, s));
  if (steps.empty()) return;
  auto s = stats::summarize(std::move(steps), kArmCiConfidence);
  a.measured = true;
  a.median_ns = s.median.estimate;
  a.within_run_ci_lo = s.median.lower;
  a.within_run_ci_hi = s.median.upper;
  a.p90_ns = s.p90.estimate;
  a.p99_ns = s.p99.estimate;
  a.mean_ns = s.mean;
}

void statistic_over_rounds(const RoundMap& rounds, Statistic statistic, ArmAnalysis& a) {
  std::vector<double> v;
  for (const auto& [r, t] : rounds) v.push_back(trial_statistic(*t, statistic));
  if (v.empty()) return;
  auto ci = stats::quantile_ci(std::move(v), 0.5, kArmCiConfidence);
  a.has_statistic = true;
  a.statistic_value = ci.estimate;
  a.statistic_ci_lo = ci.lower;
  a.statistic_ci_hi = ci.upper;
  a.statistic_ci_confidence = ci.achieved_confidence;
  a.statistic_ci_method = fmt::format("median of {} per-round values, order statistics ({}{})", ci.n,
                                      stats::to_string(ci.method), ci.coverage_met ? "" : ", too few rounds for 95%");
}

// Role of an arm from its trials' placement flags: any placement not verified -> unrealised; every trial
// degenerate -> an A/A control; some degenerate -> unrealised (the arm is not one placement).
void assign_role(const RoundMap& rounds, const std::string& baseline, ArmAnalysis& a) {
  int degenerate = 0, failed = 0;
  for (const auto& [r, t] : rounds) {
    degenerate += t->has_flag("degenerate");
    failed += t->has_flag("placement_");
  }
  const int n = static_cast<int>(rounds.size());
  if (failed > 0) {
    a.role = "unrealised";
    a.unrealised_reason = fmt::format("placement not verified in {} of {} trials", failed, n);
  } else if (degenerate > 0 && degenerate == n) {
    a.role = "control";
    a.unrealised_reason = fmt::format("degenerate: it ran with the placement of {} (an A/A control)", baseline);
  } else if (degenerate > 0) {
    a.role = "unrealised";
    a.unrealised_reason = fmt::format("degenerate in {} of {} trials", degenerate, n);
  }
}

// The class statistic of both arms in the rounds they share, in round order, and the per-round log
// ratios log(arm / base) that the repeated p-values and the dependence check read.
struct Paired {
  std::vector<double> base, arm, log_ratio;
};

Paired paired_statistics(const RoundMap& base, const RoundMap& arm, Statistic statistic) {
  Paired p;
  for (const auto& [round, t] : arm) {
    auto it = base.find(round);
    if (it == base.end()) continue;
    p.base.push_back(trial_statistic(*it->second, statistic));
    p.arm.push_back(trial_statistic(*t, statistic));
    p.log_ratio.push_back(std::log(p.arm.back() / p.base.back()));
  }
  return p;
}

// Smallest nominal two-sided p-value at the planned looks reached, turned into a repeated p-value.
std::optional<double> repeated_p(const Paired& p, const std::vector<int>& looks, int up_to_rounds) {
  double min_p = 1;
  bool any = false;
  for (int look : looks) {
    if (look > up_to_rounds || static_cast<std::size_t>(look) > p.log_ratio.size()) break;
    const auto prefix = std::span(p.log_ratio).first(static_cast<std::size_t>(look));
    min_p = std::min(min_p, stats::wilcoxon_signed_rank(prefix).p_value);
    any = true;
  }
  if (!any) return std::nullopt;
  return stats::repeated_p_value(looks, min_p);
}

// A compared arm's decision is final at the first planned look that decides it: its verdict, CI and
// rounds are that look's, and later rounds (run for the class's other arms) do not reopen it. Before
// that, the comparison over every paired round so far is shown (undecided).
void compare_to_baseline(const stats::SequentialPlan& plan, const Paired& p, ArmAnalysis& a) {
  a.n_rounds = static_cast<int>(p.arm.size());
  if (p.arm.size() < 2) {
    a.stop_reason = std::string(stats::to_string(stats::StopReason::kBeforeFirstLook));
    return;
  }
  std::optional<stats::Look> look;
  if (a.role == "compared")
    for (int r : plan.looks) {
      if (static_cast<std::size_t>(r) > p.arm.size() || r < 2) continue;
      const auto n = static_cast<std::size_t>(r);
      stats::Look l = stats::evaluate_look(std::span(p.base).first(n), std::span(p.arm).first(n), plan);
      if (l.reason == stats::StopReason::kDecided) {
        look = std::move(l);
        break;
      }
    }
  if (!look) look = stats::evaluate_look(p.base, p.arm, plan);
  // Dependence is judged on every paired round so far, also after a decision: rounds run later for
  // the class's other arms can show that the deciding look's rounds were not independent.
  const stats::Dependence all_rounds = stats::round_dependence(p.log_ratio);
  a.n_rounds = look->rounds;
  a.compared = true;
  a.look_confidence = look->confidence;
  a.ratio_pct = look->comparison.ratio_pct.estimate;
  a.ratio_lo = look->comparison.ratio_pct.lower;
  a.ratio_hi = look->comparison.ratio_pct.upper;
  a.p_value = look->comparison.wilcoxon.p_value;
  a.lag1 = all_rounds.lag1;
  a.dependence_flagged = look->dependence.flagged || all_rounds.flagged;
  a.ci_inflation = look->dependence.ci_inflation;
  a.detectable_pct = look->detectable_pct;
  a.stop_reason = std::string(stats::to_string(look->reason));
  if (a.role == "compared") {
    a.verdict = std::string(stats::to_string(look->verdict));
    a.repeated_p = repeated_p(p, plan.looks, look->rounds);
    a.stop = look->reason == stats::StopReason::kDecided || look->reason == stats::StopReason::kMaxRounds;
  } else {
    a.verdict = a.role;
    a.stop = true;
  }
}

stats::StopReason class_stop_reason(const ClassAnalysis& c, bool any_compared) {
  const bool all_decided = std::all_of(c.arms.begin(), c.arms.end(), [](const ArmAnalysis& a) {
    return a.role != "compared" || a.stop_reason == "decided";
  });
  if (c.rounds_done < c.looks.front()) return stats::StopReason::kBeforeFirstLook;
  const bool at_look = std::find(c.looks.begin(), c.looks.end(), c.rounds_done) != c.looks.end();
  if (at_look && (all_decided || !any_compared)) return stats::StopReason::kDecided;
  if (c.rounds_done >= c.looks.back()) return stats::StopReason::kMaxRounds;
  return stats::StopReason::kContinue;
}

void add_warnings(ClassAnalysis& c) {
  for (const ArmAnalysis& a : c.arms) {
    if (a.role == "control")
      c.warnings.push_back(fmt::format(
          "{} is degenerate here (same placement as {}): an A/A control, no verdict{}", a.arm, c.baseline,
          a.compared ? fmt::format("; identical placements differ by up to {:.2f}% here", std::max(std::fabs(a.ratio_lo), std::fabs(a.ratio_hi)))
                     : ""));
    if (a.role == "unrealised") c.warnings.push_back(fmt::format("{} unrealised ({}): no verdict", a.arm, a.unrealised_reason));
    if (a.dependence_flagged)
      c.warnings.push_back(fmt::format("{}: rounds look dependent (lag-1 autocorrelation {:.2f}); its CI is widened x{:.2f}",
                                       a.arm, a.lag1.value_or(0), a.ci_inflation));
    if (a.flagged_trials > 0 && a.role != "control")
      c.warnings.push_back(fmt::format("{}: {} flagged trial(s) (see trials.jsonl flags)", a.arm, a.flagged_trials));
    if (a.role == "compared" && a.verdict == "inconclusive" && c.stop_reason == "max_rounds" && a.detectable_pct)
      c.warnings.push_back(fmt::format("{}: undecided at max rounds; this plan detects effects beyond ±{:.1f}% "
                                       "(90% power) at this noise; the ratio CI bounds what is ruled out",
                                       a.arm, *a.detectable_pct));
  }
}

}  // namespace

std::vector<ClassAnalysis> analyze_run(const ExperimentConfig& cfg, const std::vector<TrialRecord>& trials) {
  const std::vector<int> looks = planned_looks(cfg);
  std::vector<ClassAnalysis> out;
  std::vector<std::map<std::string, RoundMap>> rounds_of(cfg.classes.size());
  // Pass 1: roles, per-arm statistics; the family size needs every class's roles.
  int comparisons = 0;
  for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci) {
    const ClassConfig& cls = cfg.classes[ci];
    auto& by_arm = rounds_of[ci];
    std::map<std::string, int> flagged;
    for (const auto& t : trials) {
      if (t.class_name != cls.name) continue;
      by_arm[t.arm][t.round] = &t;
      if (!t.flags.empty()) flagged[t.arm]++;
    }
    ClassAnalysis ca;
    ca.name = cls.name;
    ca.baseline = arm_name(cls.baseline);
    ca.statistic = statistic_name(cls.statistic);
    ca.statistic_unit = cls.statistic == Statistic::kThroughput ? "steps/s" : "ns";
    ca.margin_pct = cls.margin_pct;
    ca.looks = looks;
    ca.family_confidence = cfg.confidence;
    ca.rounds_done = static_cast<int>(by_arm[ca.baseline].size());
    ArmAnalysis base_probe;
    assign_role(by_arm[ca.baseline], ca.baseline, base_probe);
    for (Arm arm : cls.arms()) {
      ArmAnalysis a;
      a.arm = arm_name(arm);
      const RoundMap& rounds = by_arm[a.arm];
      ca.rounds_done = std::min(ca.rounds_done, static_cast<int>(rounds.size()));
      pooled_quantiles(rounds, a);
      statistic_over_rounds(rounds, cls.statistic, a);
      a.flagged_trials = flagged[a.arm];
      if (arm == cls.baseline) {
        a.role = "baseline";
        a.verdict = "baseline";
        a.n_rounds = static_cast<int>(rounds.size());
      } else {
        assign_role(rounds, ca.baseline, a);
        if (base_probe.role != "compared" && a.role == "compared") {
          a.role = "unrealised";
          a.unrealised_reason = fmt::format("the baseline {} is {}", ca.baseline, base_probe.unrealised_reason);
        }
        comparisons += a.role == "compared";
      }
      ca.arms.push_back(std::move(a));
    }
    out.push_back(std::move(ca));
  }
  // Pass 2: comparisons at the family's look confidence, stops, Holm over every comparison.
  std::vector<double> p_all;
  std::vector<ArmAnalysis*> p_arms;
  for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci) {
    const ClassConfig& cls = cfg.classes[ci];
    ClassAnalysis& ca = out[ci];
    stats::SequentialPlan plan{looks, cfg.confidence, std::max(1, comparisons), cls.margin_pct,
                               cls.statistic == Statistic::kThroughput};
    ca.comparisons = plan.comparisons;
    ca.look_confidence = stats::look_confidence(plan);
    ca.boundary_z = stats::look_boundary_z(plan);
    bool any_compared = false;
    for (ArmAnalysis& a : ca.arms) {
      if (a.role == "baseline") continue;
      any_compared = any_compared || a.role == "compared";
      compare_to_baseline(plan, paired_statistics(rounds_of[ci][ca.baseline], rounds_of[ci][a.arm], cls.statistic), a);
      if (a.role == "control" && a.compared)
        ca.noise_floor_pct = std::max(ca.noise_floor_pct.value_or(0), std::max(std::fabs(a.ratio_lo), std::fabs(a.ratio_hi)));
      if (a.role == "compared") {
        p_all.push_back(a.repeated_p.value_or(1.0));
        p_arms.push_back(&a);
      }
    }
    stats::StopReason reason = class_stop_reason(ca, any_compared);
    ca.stop = reason == stats::StopReason::kDecided || reason == stats::StopReason::kMaxRounds;
    ca.stop_reason = std::string(stats::to_string(reason));
    ca.stop_words = any_compared || reason != stats::StopReason::kDecided
                        ? stats::stop_words(reason, ca.rounds_done, looks)
                        : fmt::format("nothing to decide (no realised compared arm): stopped at round {}", ca.rounds_done);
  }
  if (!p_all.empty()) {
    auto holm = stats::holm_adjust(p_all, 1 - cfg.confidence);
    for (std::size_t i = 0; i < p_arms.size(); ++i)
      if (p_arms[i]->repeated_p) p_arms[i]->holm_adjusted_p = holm.adjusted_p[i];
  }
  for (ClassAnalysis& ca : out) {
    for (const ArmAnalysis& a : ca.arms)
      if (a.holm_adjusted_p) ca.holm_adjusted_p = std::min(ca.holm_adjusted_p.value_or(1.0), *a.holm_adjusted_p);
    add_warnings(ca);
  }
  return out;
}

bool plan_finished(const std::vector<ClassAnalysis>& classes) {
  return std::all_of(classes.begin(), classes.end(), [](const ClassAnalysis& c) { return c.stop; });
}

}  // namespace placebench::harness
