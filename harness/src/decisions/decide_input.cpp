// Reading `decide` inputs: run directories (summary.json, and the decision blocks of run.json's config
// copy, typed by its one reader: ClassConfig::decision).
#include "placebench/harness/decisions/decide_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/stats/comparison.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;

// A throughput class's ratio (+ = more steps per second) as the execution-time ratio decide weighs
// (stats::step_time_pct). Decreasing, so the CI bounds swap.
void as_execution_time(RemoteRatio& r) {
  auto time_pct = [](double t) { return stats::step_time_pct(t, true); };
  r.throughput_pct = r.pct;
  r.pct = time_pct(r.pct);
  if (r.lo_pct && r.hi_pct) {
    double lo = time_pct(*r.hi_pct), hi = time_pct(*r.lo_pct);
    r.lo_pct = lo;
    r.hi_pct = hi;
  }
}

}  // namespace

ClassInput make_class_input(const std::string& name, const DecisionSpec& spec, const RemoteRatio& remote,
                            const DecideOverrides& overrides) {
  ClassInput in;
  in.name = name;
  in.job_length_min = spec.job_length_s / 60.0;
  in.gpus_per_job = spec.gpus_per_job;
  for (std::size_t i = 0; i < 3; ++i) in.queue_min[i] = spec.queue_s[i] / 60.0;
  in.objective = overrides.objective.value_or(spec.objective);
  in.rate_per_gpu_hour = overrides.rate_per_gpu_hour ? overrides.rate_per_gpu_hour : spec.rate_per_gpu_hour;
  in.p_remote_any = overrides.p_remote_any.value_or(spec.p_remote_any.value_or(1.0));
  in.p_local_prefer = overrides.p_local_prefer.value_or(spec.p_local_prefer.value_or(0.5));
  in.remote = remote;
  return in;
}

namespace {

// The decision block of a class in the run's config copy (run.json), or null.
const DecisionSpec* decision_of(const ExperimentConfig& config, const std::string& name) {
  for (const ClassConfig& k : config.classes) {
    if (k.name != name) continue;
    if (!k.decision_problem.empty()) throw InputError(k.decision_problem);
    if (k.decision) return &*k.decision;
  }
  return nullptr;
}

// The `any` arm's ratio against local as decide weighs it (execution time), or why the class cannot be
// decided on this run (`why` filled in).
std::optional<RemoteRatio> remote_ratio(const ClassAnalysis& c, const std::string& any_arm, const std::string& dir,
                                        std::string& why) {
  if (c.baseline != "local") {
    why = fmt::format("its ratios are against '{}', and decide needs them against local; rerun with baseline: local",
                      c.baseline);
    return std::nullopt;
  }
  auto arm = std::find_if(c.arms.begin(), c.arms.end(), [&](const ArmAnalysis& a) { return a.arm == any_arm; });
  if (arm == c.arms.end())
    why = fmt::format("it has no '{}' arm, whose ratio against local is what `any` placement costs; add the arm to the "
                      "class or name another with decision.any_arm / --any-arm", any_arm);
  else if (arm->role == "control" || arm->role == "unrealised")
    why = fmt::format("the '{}' arm was not realised ({}), so its ratio says nothing about that placement; decide on a "
                      "run from a node where it can be realised", any_arm, arm->unrealised_reason);
  else if (!arm->compared)
    why = fmt::format("the '{}' arm has no ratio yet (ratio_pct is null); run more rounds", any_arm);
  for (const ArmAnalysis& a : c.arms)
    if (why.empty() && a.aa_check == "failed")
      why = fmt::format("its A/A control '{}' failed (ratio CI [{:+.2f}, {:+.2f}]% excludes 0 for the baseline's own "
                        "placement), so its ratios are not placement effects; decide on a run from a quiet node",
                        a.arm, a.ratio_lo, a.ratio_hi);
  if (!why.empty()) return std::nullopt;
  RemoteRatio r;
  r.arm = any_arm;
  r.pct = arm->ratio_pct;
  r.lo_pct = arm->ratio_lo;
  r.hi_pct = arm->ratio_hi;
  if (!(r.pct > -100 && *r.lo_pct > -100 && *r.lo_pct <= r.pct && r.pct <= *r.hi_pct))
    throw InputError(fmt::format("{}/summary.json: class {}: arm {}: ratio_ci_pct: expected [lo, hi] with -100 < lo <= "
                                 "ratio_pct <= hi; rebuild it with `placebench compare {} --write-summary`",
                                 dir, c.name, any_arm, dir));
  if (c.statistic == "throughput") as_execution_time(r);
  r.verdict = arm->verdict;
  r.n_rounds = arm->n_rounds;
  return r;
}

// A share of time under load: the first condition's ratio weighted by 1 - share, the loaded one's by share;
// the CI bounds combine the same way (a linear model: bound by bound, as the policy model maps them).
RemoteRatio mixed(const RemoteRatio& quiet, const RemoteRatio& loaded, double share) {
  RemoteRatio r = quiet;
  const auto mix = [&](double q, double l) { return (1 - share) * q + share * l; };
  r.pct = mix(quiet.pct, loaded.pct);
  if (quiet.lo_pct && loaded.lo_pct) {
    r.lo_pct = mix(*quiet.lo_pct, *loaded.lo_pct);
    r.hi_pct = mix(*quiet.hi_pct, *loaded.hi_pct);
  } else {
    r.lo_pct = r.hi_pct = std::nullopt;
  }
  if (quiet.throughput_pct && loaded.throughput_pct) r.throughput_pct = mix(*quiet.throughput_pct, *loaded.throughput_pct);
  r.verdict.clear();  // a mixture has no verdict of its own
  r.n_rounds = std::min(quiet.n_rounds, loaded.n_rounds);
  r.condition = fmt::format("{} x {:g} + {} x {:g}", quiet.condition, 1 - share, loaded.condition, share);
  return r;
}

// The ratio decide weighs for a class with interference conditions, by the block's under_load (absent or
// quiet: the class's first condition). Every condition weighed must give a ratio; `why` says which did not.
std::optional<RemoteRatio> weighed_ratio(const ClassAnalysis& c, const DecisionSpec& spec, const std::string& any_arm,
                                         const std::optional<UnderLoad>& override_rule, const std::string& dir,
                                         std::string& why) {
  std::optional<RemoteRatio> first = remote_ratio(c, any_arm, dir, why);
  if (!first || c.condition.empty()) return first;
  first->condition = c.condition;
  const UnderLoad rule = override_rule.value_or(spec.under_load.value_or(UnderLoad{}));
  first->under_load = rule.mode == UnderLoad::Mode::kWorst   ? "worst"
                      : rule.mode == UnderLoad::Mode::kShare ? fmt::format("share {:g}", rule.share)
                                                             : "quiet";
  if (rule.mode == UnderLoad::Mode::kQuiet || c.conditions.empty()) return first;
  std::optional<RemoteRatio> worst_loaded;
  for (const ClassAnalysis& k : c.conditions) {
    std::optional<RemoteRatio> r = remote_ratio(k, any_arm, dir, why);
    if (!r) {
      why = fmt::format("under condition {}: {}", k.condition, why);
      return std::nullopt;
    }
    r->condition = k.condition;
    r->under_load = first->under_load;
    if (!worst_loaded || r->pct > worst_loaded->pct) worst_loaded = r;
  }
  if (rule.mode == UnderLoad::Mode::kShare) return mixed(*first, *worst_loaded, rule.share);
  return worst_loaded->pct > first->pct ? worst_loaded : first;
}

// A condition that drove the policy but whose hog loaded the device's node instead of the one it names.
std::string degenerate_note(const ClassAnalysis& c, const std::string& condition) {
  for (const ClassAnalysis& k : c.conditions)
    if (k.condition == condition && has_degenerate_hog(k))
      return "; degenerate here: its hog loaded the device's node, not the other one";
  return "";
}

}  // namespace

// summary.json and run.json through their one reader each (RunDirectory: schema versions and every
// field checked), then one decision per class from the `any` arm's ratio against local.
DecideReport decide_run_directory(const std::string& dir, const DecideOverrides& overrides) {
  RunDirectory rd = RunDirectory::open(dir);
  const RunSummary summary = rd.read_summary();
  const std::string rw = (std::filesystem::path(dir) / "run.json").string();
  DecideReport report;
  report.source = dir;
  for (const ClassAnalysis& c : summary.classes) {
    std::string why;
    const DecisionSpec* spec = decision_of(*rd.config(), c.name);
    if (!spec) {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("{} has no decision block for it under config.classes; add decision: {{job_length, "
                              "gpus_per_job, queue: {{strict, prefer, any}}, objective}} to the class's config",
                              rw)));
      continue;
    }
    std::optional<RemoteRatio> r =
        weighed_ratio(c, *spec, overrides.any_arm.value_or(spec->any_arm), overrides.under_load, dir, why);
    report.classes.push_back(r ? decide_class(make_class_input(c.name, *spec, *r, overrides))
                               : undecidable_class(c.name, why));
    if (r && !r->condition.empty())
      report.classes.back().rationale += fmt::format(" (figures of condition {}, under_load: {}{})", r->condition,
                                                     r->under_load, degenerate_note(c, r->condition));
  }
  return report;
}

}  // namespace placebench::harness::decisions
