// The policy model of `placebench decide` (docs/decisions.md, "The policy model"):
//   exec(policy) = job_length x (1 + w x ratio),  w_strict = 0,  w_any = p_remote_any,
//                  w_prefer = (1 - p_local_prefer) x p_remote_any
//   turnaround = queue + exec;  GPU-min per job = GPUs x exec;  cost = rate x GPUs x exec / 60
//   score = exec + W x queue  (W = turnaround weight: 1 turnaround, 0 efficiency)
// Every derived number is monotone in the ratio, so the ratio CI maps to it bound by bound. Each score is a
// line in the ratio, and the minimum of lines is concave: when one policy wins at both CI bounds it wins on
// the whole CI, so checking the bounds decides whether the CI spans the decision.
#include "placebench/harness/decisions/decide.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "placebench/harness/errors.h"

namespace placebench::harness::decisions {
namespace {

std::size_t index_of(Policy p) { return static_cast<std::size_t>(p); }

double remote_share(const ClassInput& in, Policy p) {
  switch (p) {
    case Policy::kStrict: return 0.0;
    case Policy::kPrefer: return (1.0 - in.p_local_prefer) * in.p_remote_any;
    case Policy::kAny: return in.p_remote_any;
  }
  return 0.0;
}

double exec_at(const ClassInput& in, Policy p, double ratio_pct) {
  return in.job_length_min * (1.0 + remote_share(in, p) * ratio_pct / 100.0);
}

double score_at(const ClassInput& in, Policy p, double ratio_pct) {
  return exec_at(in, p, ratio_pct) + in.objective.turnaround_weight * in.queue_min[index_of(p)];
}

// The lowest score; ties go to the less constraining policy (any, then prefer, then strict).
Policy best_at(const ClassInput& in, double ratio_pct) {
  Policy best = Policy::kAny;
  for (Policy p : {Policy::kPrefer, Policy::kStrict})
    if (score_at(in, p, ratio_pct) < score_at(in, best, ratio_pct) - 1e-9) best = p;
  return best;
}

// f evaluated at the estimate and both CI bounds; f is monotone in the ratio, so the bounds are its CI.
template <class F>
Interval map_ratio(const RemoteRatio& r, F f) {
  double a = f(r.lo_pct.value_or(r.pct)), b = f(r.hi_pct.value_or(r.pct));
  return {f(r.pct), std::min(a, b), std::max(a, b)};
}

void validate(const ClassInput& in) {
  auto fail = [&](const std::string& what) { throw std::invalid_argument(fmt::format("class {}: {}", in.name, what)); };
  if (!(in.job_length_min > 0) || !std::isfinite(in.job_length_min)) fail("job length must be > 0");
  if (in.gpus_per_job < 1) fail("gpus_per_job must be >= 1");
  // +infinity: the policy never started a job of the class (decide --queue-from): it cannot place it.
  for (double q : in.queue_min)
    if (!(q >= 0)) fail("queue times must be >= 0");
  if (std::all_of(in.queue_min.begin(), in.queue_min.end(), [](double q) { return std::isinf(q); }))
    fail("no policy starts the class (every queue time is infinite)");
  auto unit = [](double p) { return p >= 0.0 && p <= 1.0; };
  if (!unit(in.p_remote_any) || !unit(in.p_local_prefer) || !unit(in.objective.turnaround_weight))
    fail("p_remote_any, p_local_prefer and the objective weight must lie in [0, 1]");
  if (!(in.remote.pct > -100.0)) fail("the remote ratio must be > -100%");
  if (in.remote.lo_pct.has_value() != in.remote.hi_pct.has_value()) fail("the ratio CI needs both bounds");
  if (in.remote.lo_pct && !(*in.remote.lo_pct > -100.0 && *in.remote.lo_pct <= in.remote.pct &&
                            in.remote.pct <= *in.remote.hi_pct))
    fail("the ratio CI must satisfy -100 < lo <= estimate <= hi");
  if (in.rate_per_gpu_hour && !(*in.rate_per_gpu_hour >= 0)) fail("the rate must be >= 0");
}

std::string objective_phrase(const ClassInput& in) {
  const double w = in.objective.turnaround_weight;
  if (in.objective.label == "turnaround") return "turnaround (submission to completion)";
  if (in.objective.label == "efficiency") return "efficiency (GPU-time per job)";
  return fmt::format("the weighted objective exec + {:g} x queue", w);
}

std::string ci_text(const RemoteRatio& r) {
  if (!r.lo_pct) return fmt::format("{:+.1f}% (no CI)", r.pct);
  return fmt::format("{:+.1f}% [{:+.1f}, {:+.1f}]", r.pct, *r.lo_pct, *r.hi_pct);
}

// Where the scores of policies a and b meet, in ratio percent; nullopt when they never do.
std::optional<double> break_even(const ClassInput& in, Policy a, Policy b) {
  double dw = remote_share(in, a) - remote_share(in, b);
  if (std::abs(dw) < 1e-12) return std::nullopt;
  double dq = in.queue_min[index_of(b)] - in.queue_min[index_of(a)];
  return 100.0 * in.objective.turnaround_weight * dq / (in.job_length_min * dw);
}

void recommend(ClassDecision& d) {
  const ClassInput& in = *d.input;
  const RemoteRatio& r = in.remote;
  const Policy lead = best_at(in, r.pct);
  d.leaning = lead;
  const PolicyOutcome& o = d.policies[index_of(lead)];
  const PolicyOutcome& strict = d.policies[index_of(Policy::kStrict)];
  const std::string saving =
      lead == Policy::kAny && std::isinf(strict.queue_min)
          ? std::string("strict cannot place it (no job of it started under strict in the replay)")
      : lead == Policy::kAny
          ? fmt::format("against strict it uses {:.1f} GPU-min more per job and changes turnaround by {:+.1f} min",
                        strict.gpu_min_saved_vs_any.est, -strict.turnaround_delta_min_vs_any.est)
          : fmt::format("against any it saves {:.1f} GPU-min per job ({:.1f}%) and changes turnaround by {:+.1f} min",
                        o.gpu_min_saved_vs_any.est, o.gpu_pct_saved_vs_any.est, o.turnaround_delta_min_vs_any.est);
  if (!r.lo_pct) {
    d.recommendation = std::string(policy_name(lead));
    d.rationale = fmt::format("{} best serves {} at the {} ratio {} (a point value: give a CI to test it); {}.",
                              policy_name(lead), objective_phrase(in), r.arm, ci_text(r), saving);
    if (r.verdict.empty()) return;
    // A measured arm without a CI: too few rounds to trust the point.
    d.recommendation = "inconclusive";
    d.settle = fmt::format("more rounds, so that the {} arm gets a confidence interval ({} so far)", r.arm, r.n_rounds);
    d.rationale = fmt::format("inconclusive: {} leads for {} at the {} ratio {}, but {}.", policy_name(lead),
                              objective_phrase(in), r.arm, ci_text(r), d.settle);
    return;
  }
  std::optional<Policy> rival;
  std::optional<double> nearest;
  for (double bound : {*r.lo_pct, *r.hi_pct}) {
    Policy b = best_at(in, bound);
    if (b == lead) continue;
    auto be = break_even(in, lead, b);
    if (be && (!nearest || std::abs(*be - r.pct) < std::abs(*nearest - r.pct))) nearest = be, rival = b;
  }
  if (!rival) {
    d.recommendation = std::string(policy_name(lead));
    d.rationale = fmt::format("{} best serves {} across the whole {} ratio CI {}; {}.", policy_name(lead),
                              objective_phrase(in), r.arm, ci_text(r), saving);
    return;
  }
  d.recommendation = "inconclusive";
  d.break_even_pct = *nearest;
  double needed = std::abs(*nearest - r.pct);
  d.settle = fmt::format("more rounds to narrow the {} ratio CI below +/-{:.1f}% around {:+.1f}% (the break-even "
                         "between {} and {} is {:+.1f}%), or measured queue times and placement shares",
                         r.arm, needed, r.pct, policy_name(lead), policy_name(*rival), *nearest);
  d.rationale = fmt::format("inconclusive: {} leads for {} at the {} ratio {}, but {} wins on the other side of "
                            "{:+.1f}% inside the CI; settle it with {}.",
                            policy_name(lead), objective_phrase(in), r.arm, ci_text(r), policy_name(*rival),
                            *nearest, d.settle);
}

}  // namespace

ClassDecision decide_class(const ClassInput& input) {
  validate(input);
  ClassDecision d;
  d.name = input.name;
  d.input = input;
  const ClassInput& in = *d.input;
  const double gpus = in.gpus_per_job;
  for (Policy p : kPolicies) {
    PolicyOutcome o;
    o.policy = p;
    o.remote_share = remote_share(in, p);
    o.queue_min = in.queue_min[index_of(p)];
    auto exec = [&](double r) { return exec_at(in, p, r); };
    auto exec_any = [&](double r) { return exec_at(in, Policy::kAny, r); };
    const double queue_any = in.queue_min[index_of(Policy::kAny)];
    o.exec_min = map_ratio(in.remote, exec);
    o.turnaround_min = map_ratio(in.remote, [&](double r) { return o.queue_min + exec(r); });
    o.gpu_min_per_job = map_ratio(in.remote, [&](double r) { return gpus * exec(r); });
    o.gpu_min_saved_vs_any = map_ratio(in.remote, [&](double r) { return gpus * (exec_any(r) - exec(r)); });
    o.gpu_pct_saved_vs_any = map_ratio(in.remote, [&](double r) { return 100.0 * (exec_any(r) - exec(r)) / exec_any(r); });
    o.turnaround_delta_min_vs_any =
        map_ratio(in.remote, [&](double r) { return (o.queue_min + exec(r)) - (queue_any + exec_any(r)); });
    o.score = map_ratio(in.remote, [&](double r) { return score_at(in, p, r); });
    if (in.rate_per_gpu_hour)
      o.cost_per_job = map_ratio(in.remote, [&](double r) { return *in.rate_per_gpu_hour * gpus * exec(r) / 60.0; });
    d.policies.push_back(o);
  }
  recommend(d);
  return d;
}

ClassDecision undecidable_class(const std::string& name, const std::string& reason) {
  ClassDecision d;
  d.name = name;
  d.decidable = false;
  d.reason = reason;
  d.recommendation = "none";
  d.rationale = fmt::format("{} cannot be decided: {}.", name, reason);
  return d;
}

}  // namespace placebench::harness::decisions
