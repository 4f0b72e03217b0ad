// The sequential plan driven over the rounds of one class (docs/statistics.md, "Repeated looks"): from
// each compared arm's per-round values, paired with the baseline's, and the plan (looks, margin,
// confidence, family size), which verdict each arm has, the look that decided it, its repeated p-value,
// its stop reason and the class's stop. Plain data in and out; the runner (runner/analysis.cpp) collects
// the values from trials and turns the result into its records. The rules:
//   - an arm's decision is final at the first planned look that decides it (sequential.h's evaluate_look),
//     among the looks where it was still a realised compared arm: later rounds never change it;
//   - before that, the look shown is the comparison over every paired round so far (undecided);
//   - a look whose widened CI would decide but whose effective rounds are too few is held (undecided);
//   - the repeated p-value is taken at the planned looks up to the look shown;
//   - a class stops at a planned look once every realised compared arm is decided (or it has none), or
//     at the last look.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "placebench/stats/sequential.h"

namespace placebench::stats {

// One arm compared against its class's baseline.
struct ArmRounds {
  std::span<const double> baseline;  // per-round class statistic of the baseline, paired by round, in round order
  std::span<const double> arm;       // ... of the arm, the same rounds (values > 0)
  std::size_t realised_rounds = 0;   // leading paired rounds over which it was a realised compared arm
                                     // (a placement failure or degeneracy never heals)
  bool realised = true;              // ... over every round so far (else a control or unrealised arm)
};

struct ArmDecision {
  bool realised = false;             // gets a verdict: realised now, or decided while it was
  std::optional<int> decided_look;   // 1-based planned look that decided it (final from then on)
  std::optional<Look> look;          // the look shown: the deciding one, else every paired round
                                     // (nullopt below 2 paired rounds)
  Dependence all_rounds;             // dependence of every paired round so far (also after a decision)
  std::optional<double> repeated_p;  // realised arms with a look
  StopReason reason = StopReason::kBeforeFirstLook;  // realised arms only
  bool stop = false;                 // decided or max rounds; an arm that is not realised stops (no verdict)
};

struct ClassDecision {
  std::vector<ArmDecision> arms;     // in the order of the input arms
  bool any_realised = false;         // some arm was a realised compared arm before the decisions
  StopReason reason = StopReason::kBeforeFirstLook;
  bool stop = false;                 // decided at a planned look, or max rounds
};

// Whether a reason ends the plan: decided or max rounds.
bool stops(StopReason reason);

// Whether the arm counts in the family of m comparisons: realised over the rounds of the first planned
// look (or every paired round before it). m is the count of such arms over the run, as planned at the
// first look; it stays whatever later rounds show.
bool in_planned_family(const std::vector<int>& looks, const ArmRounds& rounds);

// Repeated p-value (group_sequential.h) from the smallest Wilcoxon signed-rank p of the per-round log
// ratios at the planned looks reached by both `up_to_rounds` and the rounds there are. nullopt: no look.
std::optional<double> sequential_repeated_p(const std::vector<int>& looks, std::span<const double> log_ratios,
                                            int up_to_rounds);

// One arm's decision under the plan. Throws as evaluate_look.
ArmDecision decide_arm(const SequentialPlan& plan, const ArmRounds& rounds);

// The class stop rule after `rounds_done` complete rounds: before the first look; decided at a planned
// look where every realised arm is decided (or none was realised); max rounds from the last look on;
// continue otherwise.
StopReason class_stop_reason(const std::vector<int>& looks, int rounds_done, const ClassDecision& decision);

// Every arm's decision and the class's stop.
ClassDecision decide_class(const SequentialPlan& plan, int rounds_done, std::span<const ArmRounds> arms);

}  // namespace placebench::stats
