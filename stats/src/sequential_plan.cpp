// The sequential plan driven over a class's rounds (sequential_plan.h): decisions final at their look,
// held looks, repeated p-values and the class stop rule.
#include "placebench/stats/sequential_plan.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "placebench/stats/group_sequential.h"
#include "placebench/stats/rank_tests.h"

namespace placebench::stats {
namespace {

std::vector<double> log_ratios(const ArmRounds& r) {
  std::vector<double> d;
  d.reserve(r.arm.size());
  for (std::size_t i = 0; i < r.arm.size(); ++i) d.push_back(std::log(r.arm[i] / r.baseline[i]));
  return d;
}

// The first planned look that decides the arm, among the looks where it was still a realised compared
// arm (no later look can decide it). nullopt: none.
std::optional<std::pair<int, Look>> deciding_look(const SequentialPlan& plan, const ArmRounds& r) {
  for (std::size_t k = 0; k < plan.looks.size(); ++k) {
    const int look = plan.looks[k];
    if (static_cast<std::size_t>(look) > r.arm.size() || look < 2) break;
    const auto n = static_cast<std::size_t>(look);
    if (n > r.realised_rounds) break;
    Look l = evaluate_look(r.baseline.first(n), r.arm.first(n), plan);
    if (l.reason == StopReason::kDecided) return std::make_pair(static_cast<int>(k + 1), std::move(l));
  }
  return std::nullopt;
}

}  // namespace

bool stops(StopReason reason) { return reason == StopReason::kDecided || reason == StopReason::kMaxRounds; }

bool in_planned_family(const std::vector<int>& looks, const ArmRounds& rounds) {
  const std::size_t n = std::min(rounds.arm.size(), static_cast<std::size_t>(looks.front()));
  return rounds.realised_rounds >= n;
}

std::optional<double> sequential_repeated_p(const std::vector<int>& looks, std::span<const double> log_ratios,
                                            int up_to_rounds) {
  double min_p = 1;
  bool any = false;
  for (int look : looks) {
    if (look > up_to_rounds || static_cast<std::size_t>(look) > log_ratios.size()) break;
    min_p = std::min(min_p, wilcoxon_signed_rank(log_ratios.first(static_cast<std::size_t>(look))).p_value);
    any = true;
  }
  if (!any) return std::nullopt;
  return repeated_p_value(looks, min_p);
}

// A decided arm keeps its deciding look's verdict, CI and rounds; the dependence of every round so far is
// still judged, since rounds run later for the class's other arms can show what the look had to bound.
ArmDecision decide_arm(const SequentialPlan& plan, const ArmRounds& rounds) {
  ArmDecision d;
  d.realised = rounds.realised;
  const std::size_t n = rounds.arm.size();
  std::optional<std::pair<int, Look>> decided;
  if (n >= 2) decided = deciding_look(plan, rounds);
  if (decided) {
    d.realised = true;
    d.decided_look = decided->first;
  }
  if (n < 2) return d;
  d.look = decided ? std::move(decided->second) : evaluate_look(rounds.baseline, rounds.arm, plan);
  const std::vector<double> d_all = log_ratios(rounds);
  d.all_rounds = round_dependence(d_all);
  if (!d.realised) {
    d.stop = true;
    return d;
  }
  d.reason = d.look->reason;
  d.repeated_p = sequential_repeated_p(plan.looks, d_all, d.look->rounds);
  d.stop = stops(d.reason);
  return d;
}

StopReason class_stop_reason(const std::vector<int>& looks, int rounds_done, const ClassDecision& decision) {
  const bool all_decided = std::all_of(decision.arms.begin(), decision.arms.end(), [](const ArmDecision& a) {
    return !a.realised || a.reason == StopReason::kDecided;
  });
  if (rounds_done < looks.front()) return StopReason::kBeforeFirstLook;
  const bool at_look = std::find(looks.begin(), looks.end(), rounds_done) != looks.end();
  if (at_look && (all_decided || !decision.any_realised)) return StopReason::kDecided;
  if (rounds_done >= looks.back()) return StopReason::kMaxRounds;
  return StopReason::kContinue;
}

ClassDecision decide_class(const SequentialPlan& plan, int rounds_done, std::span<const ArmRounds> arms) {
  ClassDecision c;
  for (const ArmRounds& r : arms) {
    c.any_realised = c.any_realised || r.realised;
    c.arms.push_back(decide_arm(plan, r));
  }
  c.reason = class_stop_reason(plan.looks, rounds_done, c);
  c.stop = stops(c.reason);
  return c;
}

}  // namespace placebench::stats
