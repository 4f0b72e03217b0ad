// `placebench decide`: the placement policy per workload class (strict, prefer, any), from the measured
// execution-time ratio of the remote arm against local, the job length, GPUs per job, queue times and the
// objective. The model is linear in the ratio, so its CI maps to every derived number bound by bound
// (docs/decisions.md, "The policy model").
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/decision_spec/decision_spec.h"

namespace placebench::harness::decisions {

// The execution-time ratio of the arm that `any` lands on, against local, in percent (+10: 10% slower).
struct RemoteRatio {
  std::string arm = "remote";
  double pct = 0.0;                      // execution time of the arm against local, % (+ = slower)
  std::optional<double> lo_pct, hi_pct;  // absent: no CI (what-if without one, or too few rounds)
  // Set when the class compared throughput: the measured throughput ratio (+ = faster), from which
  // pct = 100 x (1 / (1 + t/100) - 1) and its CI (bounds swapped) were derived.
  std::optional<double> throughput_pct;
  std::string verdict;                   // from summary.json; "" for a what-if
  int n_rounds = 0;
  // A class run under interference conditions (issue 32): the condition whose figures drove the policy
  // ("quiet", "membw-device-2", or "quiet x 0.7 + membw-device-2 x 0.3" for a share), and the rule that
  // chose it (decision.under_load: quiet, worst, share 0.3); "" for a class without conditions.
  std::string condition, under_load;
};

struct ClassInput {
  std::string name;
  double job_length_min = 0.0;  // execution time under local placement (the baseline of the ratio)
  int gpus_per_job = 1;
  std::array<double, 3> queue_min{};  // indexed by Policy
  Objective objective;
  std::optional<double> rate_per_gpu_hour;
  double p_remote_any = 1.0;    // share of `any` jobs that land remote
  double p_local_prefer = 0.5;  // chance `prefer` finds a local placement
  RemoteRatio remote;
};

// est with the CI bounds [lo, hi] (lo == hi == est when there is no CI).
struct Interval {
  double est = 0.0, lo = 0.0, hi = 0.0;
};

struct PolicyOutcome {
  Policy policy = Policy::kAny;
  double remote_share = 0.0;  // w: exec = job_length x (1 + w x ratio)
  double queue_min = 0.0;
  Interval exec_min, turnaround_min, gpu_min_per_job, gpu_min_saved_vs_any, gpu_pct_saved_vs_any,
      turnaround_delta_min_vs_any, score;
  std::optional<Interval> cost_per_job;
};

struct ClassDecision {
  std::string name;
  bool decidable = true;
  std::string reason;                  // why not, when !decidable
  std::optional<ClassInput> input;     // absent when !decidable
  std::vector<PolicyOutcome> policies; // strict, prefer, any
  std::string recommendation;          // a policy, "inconclusive" or "none" (not decidable)
  std::optional<Policy> leaning;       // the best policy at the point estimate
  std::optional<double> break_even_pct;
  std::string settle;                  // what evidence would settle an inconclusive recommendation
  std::string rationale;               // one sentence
};

// Throws std::invalid_argument on inputs outside the model (job length <= 0, p outside [0, 1], ...).
ClassDecision decide_class(const ClassInput& input);
ClassDecision undecidable_class(const std::string& name, const std::string& reason);

}  // namespace placebench::harness::decisions
