// Running and summarising one trial (see trial.h).
#include "placebench/harness/runner/trial.h"

#include <chrono>
#include <cmath>
#include <fmt/format.h>

#include "placebench/harness/placement/plan.h"
#include "placebench/harness/stats/comparison.h"
#include "placebench/harness/stats/quantile.h"
#include "placebench/harness/workloads/staging.h"

namespace placebench::harness {
namespace {

constexpr double kDriftPct = 5.0;           // first vs last third: smaller shifts are not flagged
constexpr double kDriftConfidence = 0.99;

// A drift (warm-up not over, throttling, a neighbour arriving) shows as a shift between the first and
// the last third of the steps: flag it when the Hodges-Lehmann shift's CI excludes 0 and exceeds kDriftPct.
void flag_drift(const std::vector<double>& steps, std::vector<std::string>& flags) {
  std::size_t third = steps.size() / 3;
  if (third < 5) return;
  std::vector<double> first(steps.begin(), steps.begin() + static_cast<long>(third));
  std::vector<double> last(steps.end() - static_cast<long>(third), steps.end());
  auto cmp = stats::compare_unpaired(first, last, kDriftConfidence);
  bool excludes_zero = cmp.ratio_pct.lower > 0 || cmp.ratio_pct.upper < 0;
  if (excludes_zero && std::abs(cmp.ratio_pct.estimate) > kDriftPct)
    flags.push_back(fmt::format("non_steady: last third of the steps {:+.1f}% against the first", cmp.ratio_pct.estimate));
}

StagingConfig staging_config(const ClassConfig& cls) {
  StagingConfig s;
  s.backend = cls.workload.backend;
  s.direction = cls.workload.direction;
  s.memory = cls.workload.memory;
  s.placement.device.gpu = cls.gpu;
  s.placement.device.device_numa = cls.device_numa;
  s.placement.remote_node = cls.remote_node;
  s.placement.cpus_per_worker = cls.cpus_per_worker;
  s.placement.allow_degenerate = cls.allow_degenerate;
  return s;
}

}  // namespace

nlohmann::json summarize_steps(const std::vector<std::int64_t>& step_ns, std::vector<std::string>& flags) {
  if (step_ns.empty()) return {{"n", 0}};
  std::vector<double> v(step_ns.begin(), step_ns.end());
  for (double& x : v) x = std::max(x, 1.0);  // a 0 ns step (clock granularity) would break log ratios
  flag_drift(v, flags);
  stats::SampleSummary s = stats::summarize(v, 0.95);
  return {{"n", s.n}, {"median_ns", s.median.estimate}, {"median_ci_ns", {s.median.lower, s.median.upper}},
          {"p90_ns", s.p90.estimate}, {"p99_ns", s.p99.estimate}, {"mean_ns", s.mean},
          {"throughput_steps_s", 1e9 / s.mean}};
}

double trial_statistic(const nlohmann::json& trial, Statistic statistic) {
  const auto& s = trial.at("summary");
  switch (statistic) {
    case Statistic::kMedian: return s.at("median_ns").get<double>();
    case Statistic::kP99: return s.at("p99_ns").get<double>();
    case Statistic::kThroughput: return s.at("throughput_steps_s").get<double>();
  }
  return 0;
}

nlohmann::json run_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                         const TrialSlot& slot, const std::atomic<bool>* stop) {
  auto started = std::chrono::system_clock::now();
  auto t0 = std::chrono::steady_clock::now();
  StagingConfig scfg = staging_config(cls);
  PlanRequest req = staging_plan_request(scfg);
  req.arms = {slot.arm};
  ArmPlan plan = plan_arms(inv, req).front();
  StagingSteps run = run_staging_steps(inv, scfg, plan, cls.workload.bytes, cls.workload.copies, config.warmup_steps,
                                       config.steps, stop);
  if (run.stopped) return nullptr;
  std::vector<std::string> flags;
  if (run.placement.status != "verified") flags.push_back("placement_" + run.placement.status);
  if (run.placement.degenerate) flags.push_back("degenerate");
  nlohmann::json summary = summarize_steps(run.step_ns, flags);
  summary["bytes_per_s"] = static_cast<double>(cls.workload.bytes) * cls.workload.copies *
                           (cls.workload.direction == Direction::kBidir ? 2 : 1) *
                           summary["throughput_steps_s"].get<double>();
  return {{"class", slot.class_name},
          {"arm", arm_name(slot.arm)},
          {"round", slot.round},
          {"position", slot.position},
          {"started_at", std::chrono::duration_cast<std::chrono::milliseconds>(started.time_since_epoch()).count()},
          {"duration_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
          {"workload", cls.workload.type},
          {"backend", run.backend},
          {"placement", placement_to_json(run.placement)},
          {"warmup_steps", config.warmup_steps},
          {"step_ns", run.step_ns},
          {"summary", summary},
          {"flags", flags}};
}

}  // namespace placebench::harness
