// Run analysis (see analysis.h). Method and sources: docs/statistics.md.
#include "placebench/harness/runner/analysis.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "analysis_core.h"
#include "placebench/harness/runner/trial.h"
#include "placebench/stats/quantile.h"
#include "placebench/stats/sequential.h"
#include "placebench/stats/sequential_plan.h"
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
  a.statistic_rounds = static_cast<int>(ci.n);
  a.statistic_value = ci.estimate;
  a.statistic_ci_lo = ci.lower;
  a.statistic_ci_hi = ci.upper;
  a.statistic_ci_confidence = ci.achieved_confidence;
  a.statistic_ci_method = fmt::format("median of {} per-round values, order statistics ({}{})", ci.n,
                                      stats::to_string(ci.method), ci.coverage_met ? "" : ", too few rounds for 95%");
}

// The trials of one arm in round order (a view of a RoundMap, or of its first rounds).
using Trials = std::vector<const TrialRecord*>;

// Role of an arm from its trials' placement flags: any placement not verified -> unrealised; every trial
// degenerate -> an A/A control; some degenerate -> unrealised (the arm is not one placement). A baseline
// that is not itself realised leaves its arms unrealised. Returns "compared" or the role, with the reason.
std::string role_of(const Trials& arm, const Trials& base, const std::string& baseline, std::string& reason) {
  const auto count = [](const Trials& ts, std::string_view flag) {
    return static_cast<int>(std::count_if(ts.begin(), ts.end(), [&](const TrialRecord* t) { return t->has_flag(flag); }));
  };
  const int n = static_cast<int>(arm.size()), failed = count(arm, "placement_"), degenerate = count(arm, "degenerate");
  const int base_failed = count(base, "placement_"), base_degenerate = count(base, "degenerate");
  if (failed > 0) {
    reason = fmt::format("placement not verified in {} of {} trials", failed, n);
    return "unrealised";
  }
  if (degenerate > 0 && degenerate == n) {
    reason = fmt::format("degenerate: it ran with the placement of {} (an A/A control)", baseline);
    return "control";
  }
  if (degenerate > 0) {
    reason = fmt::format("degenerate in {} of {} trials", degenerate, n);
    return "unrealised";
  }
  if (base_failed > 0 || base_degenerate > 0) {
    reason = base_failed > 0 ? fmt::format("the baseline {} is unrealised (placement not verified in {} of {} trials)",
                                           baseline, base_failed, base.size())
                             : fmt::format("the baseline {} is degenerate in {} of {} trials", baseline, base_degenerate,
                                           base.size());
    return "unrealised";
  }
  return "compared";
}

// The class statistic of both arms in the rounds they share, in round order, with their trials.
struct Paired {
  std::vector<double> base, arm;
  Trials base_trials, arm_trials;
  std::size_t size() const { return arm.size(); }
};

Paired paired_statistics(const RoundMap& base, const RoundMap& arm, Statistic statistic) {
  Paired p;
  for (const auto& [round, t] : arm) {
    auto it = base.find(round);
    if (it == base.end()) continue;
    p.base.push_back(trial_statistic(*it->second, statistic));
    p.arm.push_back(trial_statistic(*t, statistic));
    p.base_trials.push_back(it->second);
    p.arm_trials.push_back(t);
  }
  return p;
}

Trials all_trials(const RoundMap& rounds) {
  Trials ts;
  for (const auto& [r, t] : rounds) ts.push_back(t);
  return ts;
}

// Leading paired rounds over which the arm was a realised compared arm: the rounds before the first whose
// trials make role_of say otherwise. role_of counts flags, so a prefix of rounds is "compared" exactly when
// each of its rounds is (a placement failure or degeneracy never heals).
std::size_t realised_rounds(const Paired& p, const std::string& baseline) {
  std::string reason;
  std::size_t n = 0;
  while (n < p.size() && role_of({p.arm_trials[n]}, {p.base_trials[n]}, baseline, reason) == "compared") ++n;
  return n;
}

stats::ArmRounds arm_rounds(const Paired& p, const std::string& baseline, bool realised) {
  return stats::ArmRounds{p.base, p.arm, realised_rounds(p, baseline), realised};
}

void show_look(const stats::Look& look, ArmAnalysis& a) {
  a.n_rounds = look.rounds;
  a.compared = true;
  a.look_confidence = look.confidence;
  a.ratio_pct = look.comparison.ratio_pct.estimate;
  a.ratio_lo = look.comparison.ratio_pct.lower;
  a.ratio_hi = look.comparison.ratio_pct.upper;
  a.p_value = look.comparison.wilcoxon.p_value;
  a.ci_inflation = look.dependence.ci_inflation;
  a.effective_rounds = look.dependence.effective_rounds;
}

// An arm's decision (stats::decide_arm) in its record. A decision is final at its look: its verdict, CI,
// rounds and m are that look's, and later rounds (run for the class's other arms) only add warnings: a
// placement that failed afterwards, dependence found afterwards. Before it, the comparison over every
// paired round so far is shown (undecided), and the role of every round so far.
void show_decision(const stats::ArmDecision& d, std::size_t paired_rounds, ArmAnalysis& a) {
  a.n_rounds = static_cast<int>(paired_rounds);
  if (d.decided_look) {
    if (a.role != "compared")
      a.verdict_warnings.push_back(fmt::format("{} after the deciding look ({} rounds): the verdict stands on those rounds",
                                               a.unrealised_reason, d.look->rounds));
    a.role = "compared";
    a.unrealised_reason.clear();
    a.decided_look = d.decided_look;
  }
  if (!d.look) {
    if (a.role == "compared") a.stop_reason = std::string(stats::to_string(d.reason));
    return;
  }
  const stats::Look& look = *d.look;
  show_look(look, a);
  a.lag1 = d.all_rounds.lag1;
  a.dependence_flagged = d.all_rounds.flagged;
  a.stop = d.stop;
  if (a.role != "compared") {
    a.verdict = a.role;
    return;
  }
  a.verdict = std::string(stats::to_string(look.verdict));
  a.held = look.held;
  a.stop_reason = std::string(stats::to_string(d.reason));
  if (look.detectable) {
    a.detectable_below_pct = look.detectable->below_pct;
    a.detectable_pct = look.detectable->above_pct;
  }
  a.repeated_p = d.repeated_p;
  if (d.decided_look && a.dependence_flagged && paired_rounds > static_cast<std::size_t>(look.rounds))
    a.verdict_warnings.push_back(fmt::format(
        "rounds after the deciding look ({} rounds) look dependent (lag-1 autocorrelation {:.2f} over {}): the verdict "
        "stands, made with the dependence correction at its look", look.rounds, a.lag1.value_or(0), paired_rounds));
}

// An A/A control ran where the baseline runs: its ratio CI (at the look confidence, dependence-corrected)
// should hold 0. One that excludes 0 is a failed A/A check: identical placements differ here.
void judge_control(ArmAnalysis& a) {
  if (a.role != "control" || !a.compared) return;
  a.aa_check = a.ratio_lo <= 0 && a.ratio_hi >= 0 ? "passed" : "failed";
}

std::string control_warning(const ClassAnalysis& c, const ArmAnalysis& a) {
  if (a.aa_check == "failed")
    return fmt::format("failed A/A check: {} ran with the placement of {} and differs from it (ratio CI [{:+.2f}, {:+.2f}]% "
                       "excludes 0): something other than placement moves this class's numbers (run order, a noisy or "
                       "drifting machine); its verdicts cannot be read as placement effects", a.arm, c.baseline,
                       a.ratio_lo, a.ratio_hi);
  return fmt::format("{} is degenerate here (same placement as {}): an A/A control, no verdict{}", a.arm, c.baseline,
                     a.compared ? fmt::format("; identical placements differ by up to {:.2f}% here",
                                              std::max(std::fabs(a.ratio_lo), std::fabs(a.ratio_hi)))
                                : "");
}

void add_warnings(ClassAnalysis& c) {
  for (const ArmAnalysis& a : c.arms) {
    if (a.role == "control") c.warnings.push_back(control_warning(c, a));
    if (a.role == "unrealised") c.warnings.push_back(fmt::format("{} unrealised ({}): no verdict", a.arm, a.unrealised_reason));
    for (const std::string& w : a.verdict_warnings) c.warnings.push_back(fmt::format("{} ({}): {}", a.arm, a.verdict, w));
    if (a.dependence_flagged && !a.decided_look)
      c.warnings.push_back(fmt::format("{}: rounds look dependent (lag-1 autocorrelation {:.2f}); its CI is widened x{:.2f}",
                                       a.arm, a.lag1.value_or(0), a.ci_inflation));
    if (a.held)
      c.warnings.push_back(fmt::format("{}: held at this look: its widened CI would decide, but {:.1f} effective rounds are "
                                       "too few to exclude dependence ({:g} needed); later looks decide", a.arm,
                                       a.effective_rounds, stats::kMinEffectiveRounds));
    if (a.flagged_trials > 0 && a.role != "control")
      c.warnings.push_back(fmt::format("{}: {} flagged trial(s) (see trials.jsonl flags)", a.arm, a.flagged_trials));
    if (a.role == "compared" && a.verdict == "inconclusive" && c.stop_reason == "max_rounds" && a.detectable_pct)
      c.warnings.push_back(fmt::format("{}: undecided at max rounds; this plan detects effects below {:+.1f}% or beyond "
                                       "{:+.1f}% (90% power, one side each) at this noise; the ratio CI bounds what is "
                                       "ruled out", a.arm, a.detectable_below_pct.value_or(0), *a.detectable_pct));
  }
}

}  // namespace

namespace {

// Pass 1 for one class: its rounds by arm, roles and per-arm statistics; counts the class's comparisons in
// the planned family (whose size needs every class's roles).
ClassAnalysis describe_class(const ClassConfig& cls, const ExperimentConfig& cfg, const std::vector<int>& looks,
                             const std::vector<TrialRecord>& trials, std::map<std::string, RoundMap>& by_arm,
                             int& comparisons) {
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
  const Trials base_trials = all_trials(by_arm[ca.baseline]);
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
      a.role = role_of(all_trials(rounds), base_trials, ca.baseline, a.unrealised_reason);
      const Paired p = paired_statistics(by_arm[ca.baseline], rounds, cls.statistic);
      comparisons += stats::in_planned_family(looks, arm_rounds(p, ca.baseline, a.role == "compared"));
    }
    ca.arms.push_back(std::move(a));
  }
  return ca;
}

// Pass 2 for one class: its comparisons at the family's look confidence and its stop; the compared arms'
// repeated p-values join `p_all` (with their arms in `p_arms`) for Holm over the family.
void compare_class(const ClassConfig& cls, const ExperimentConfig& cfg, const std::vector<int>& looks, int comparisons,
                   std::map<std::string, RoundMap>& by_arm, ClassAnalysis& ca, std::vector<double>& p_all,
                   std::vector<ArmAnalysis*>& p_arms) {
  stats::SequentialPlan plan{looks, cfg.confidence, std::max(1, comparisons), cls.margin_pct,
                             cls.statistic == Statistic::kThroughput};
  ca.comparisons = plan.comparisons;
  ca.look_confidence = stats::look_confidence(plan);
  ca.boundary_z = stats::look_boundary_z(plan);
  // Each compared arm's rounds paired with the baseline's (ArmRounds views them: they outlive the decision).
  std::vector<ArmAnalysis*> compared;
  std::vector<Paired> paired;
  std::vector<stats::ArmRounds> rounds;
  for (ArmAnalysis& a : ca.arms)
    if (a.role != "baseline") {
      compared.push_back(&a);
      paired.push_back(paired_statistics(by_arm[ca.baseline], by_arm[a.arm], cls.statistic));
    }
  for (std::size_t i = 0; i < paired.size(); ++i)
    rounds.push_back(arm_rounds(paired[i], ca.baseline, compared[i]->role == "compared"));
  const stats::ClassDecision decision = stats::decide_class(plan, ca.rounds_done, rounds);
  for (std::size_t i = 0; i < compared.size(); ++i) {
    ArmAnalysis& a = *compared[i];
    show_decision(decision.arms[i], paired[i].size(), a);
    judge_control(a);
    if (a.role == "control" && a.compared)
      ca.noise_floor_pct = std::max(ca.noise_floor_pct.value_or(0), std::max(std::fabs(a.ratio_lo), std::fabs(a.ratio_hi)));
    if (a.role == "compared") {
      p_all.push_back(a.repeated_p.value_or(1.0));
      p_arms.push_back(&a);
    }
  }
  const stats::StopReason reason = decision.reason;
  ca.stop = decision.stop;
  ca.stop_reason = std::string(stats::to_string(reason));
  ca.stop_words = decision.any_realised || reason != stats::StopReason::kDecided
                      ? stats::stop_words(reason, ca.rounds_done, looks)
                      : fmt::format("nothing to decide (no realised compared arm): stopped at round {}", ca.rounds_done);
}

}  // namespace

std::vector<ClassAnalysis> detail::analyze_classes(const ExperimentConfig& cfg, const std::vector<TrialRecord>& trials) {
  const std::vector<int> looks = planned_looks(cfg);
  std::vector<ClassAnalysis> out;
  std::vector<std::map<std::string, RoundMap>> rounds_of(cfg.classes.size());
  int comparisons = 0;
  for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci)
    out.push_back(describe_class(cfg.classes[ci], cfg, looks, trials, rounds_of[ci], comparisons));
  std::vector<double> p_all;
  std::vector<ArmAnalysis*> p_arms;
  for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci)
    compare_class(cfg.classes[ci], cfg, looks, comparisons, rounds_of[ci], out[ci], p_all, p_arms);
  // Holm over every comparison of the run.
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
