// Running and summarising one trial (see trial.h).
#include "placebench/harness/runner/trial.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/harness/placement/plan.h"
#include "interference.h"
#include "workload_run.h"
#include "placebench/stats/comparison.h"
#include "placebench/stats/quantile.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"
#include "placebench/hostpipe/sysmetrics/sampler.h"
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
  s.placement = cls.plan_request({});
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

const char* statistic_key(Statistic statistic) {
  switch (statistic) {
    case Statistic::kMedian: return "median_ns";
    case Statistic::kP99: return "p99_ns";
    case Statistic::kThroughput: return "throughput_steps_s";
  }
  return "median_ns";
}

double trial_statistic(const TrialRecord& trial, Statistic statistic) { return trial.summary.at(statistic_key(statistic)); }

bool TrialRecord::has_flag(std::string_view prefix) const {
  return std::any_of(flags.begin(), flags.end(), [&](const std::string& f) { return f.rfind(prefix, 0) == 0; });
}

namespace {

using detail::WorkloadRun;

WorkloadRun staging_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls, Arm arm,
                          const std::atomic<bool>* stop) {
  StagingConfig scfg = staging_config(cls);
  PlanRequest req = staging_plan_request(scfg);
  req.arms = {arm};
  ArmPlan plan = plan_arms(inv, req).front();
  StagingSteps run = run_staging_steps(inv, scfg, plan, cls.workload.bytes, cls.workload.copies, config.warmup_steps,
                                       config.steps, stop);
  WorkloadRun w{run.backend, std::move(run.step_ns), run.placement, nlohmann::json::object(), run.stopped, {}};
  w.extra["bytes_per_step"] = static_cast<double>(cls.workload.bytes) * cls.workload.copies *
                              (cls.workload.direction == Direction::kBidir ? 2 : 1);
  return w;
}

// The trial's placement flag comes from its worst record: failed, then partial, then verified.
std::string worst_placement_status(const WorkloadRun& run) {
  std::string worst = run.placement.status;
  for (const auto& p : run.more_placements)
    if (p.status == "failed" || (p.status == "partial" && worst == "verified")) worst = p.status;
  return worst;
}

WorkloadRun pipeline_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls, Arm arm,
                           const std::atomic<bool>* stop) {
  PipelineConfig pc = pipeline_config(config, cls, arm);
  pc.stop = stop;
  PipelineResult r = run_pipeline(inv, pc);
  if (r.status == "failed") throw std::runtime_error("pipeline trial failed: " + r.error);
  WorkloadRun w{r.backend, {}, r.worker_placement.empty() ? PlacementRecord{} : r.worker_placement.front(),
                nlohmann::json::object(), r.status == "interrupted", {}};
  for (const auto& s : r.steps) w.step_ns.push_back(s.step_ns);
  w.extra = {{"input_bound_pct", r.summary.input_bound_pct}, {"input_bound_class", r.summary.input_bound_class},
             {"wait_ns_median", r.summary.wait_ns_median}, {"h2d_ns_median", r.summary.h2d_ns_median},
             {"compute_ns_median", r.summary.compute_ns_median}, {"wait_ns_mean", r.summary.wait_ns_mean},
             {"h2d_ns_mean", r.summary.h2d_ns_mean}, {"compute_ns_mean", r.summary.compute_ns_mean},
             {"step_ns_mean", r.summary.step_ns_mean}, {"throughput_samples_s", r.summary.throughput_samples_s},
             {"cpu_util", r.summary.cpu_util}, {"bottleneck", r.summary.stages.bottleneck}};
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& wp : r.worker_placement) workers.push_back(placement_to_json(wp));
  w.extra["placement_workers"] = workers;
  w.extra["placement_ring"] = placement_to_json(r.ring_placement);
  w.extra["placement_loop"] = placement_to_json(r.loop_placement);
  w.more_placements.assign(r.worker_placement.begin() + (r.worker_placement.empty() ? 0 : 1), r.worker_placement.end());
  w.more_placements.push_back(r.ring_placement);
  w.more_placements.push_back(r.loop_placement);
  return w;
}

// The CPUs the trial's threads are bound to (its workers', and a pipeline's training loop's): the sampler
// reports their utilisation and runs outside them when an allowed CPU is left. Empty for unpinned and for
// collective classes (each rank places itself on its own device's node).
std::vector<int> arm_cpus(const Inventory& inv, const ClassConfig& cls, Arm arm) {
  if (cls.workload.type == "collective") return {};
  ArmPlan plan = plan_arms(inv, cls.plan_request({arm})).front();
  std::vector<int> cpus;
  for (const auto& w : plan.workers) cpus.insert(cpus.end(), w.cpus.begin(), w.cpus.end());
  if (cls.workload.type == "pipeline") cpus.insert(cpus.end(), plan.loop.cpus.begin(), plan.loop.cpus.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

// System metrics beside the step times (off the measured threads: the sampler has its own thread).
hostpipe::sysmetrics::SamplerOptions sampler_options(const Inventory& inv, const ClassConfig& cls, Arm arm) {
  hostpipe::sysmetrics::SamplerOptions so;
  so.cpus = arm_cpus(inv, cls, arm);
  if (!so.cpus.empty()) {
    std::vector<int> allowed = inv.allowed_cpus.empty() ? hostpipe::current_thread_affinity()
                                                        : hostpipe::parse_cpulist(inv.allowed_cpus);
    std::set_difference(allowed.begin(), allowed.end(), so.cpus.begin(), so.cpus.end(), std::back_inserter(so.sampler_cpus));
  }
  if (!inv.gpus.empty() && !cls.device_numa && cls.workload.backend != "host")
    so.gpu_pci_bus_id = inv.gpus.at(static_cast<std::size_t>(cls.gpu.value_or(0))).pci_bus_id;
  return so;
}

const Condition& condition_of(const ClassConfig& cls, const TrialSlot& slot) {
  const Condition* k = cls.condition(slot.condition);
  if (!k) throw std::logic_error("class " + cls.name + " has no condition " + slot.condition);
  return *k;
}

}  // namespace

nlohmann::json run_trial(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls,
                         const TrialSlot& slot, const std::atomic<bool>* stop, collectives::MpiSession* session) {
  auto started = std::chrono::system_clock::now();
  auto t0 = std::chrono::steady_clock::now();
  const hostpipe::sysmetrics::SamplerOptions so = sampler_options(inv, cls, slot.arm);
  hostpipe::sysmetrics::SystemSampler sampler(so);
  sampler.start();
  TrialThreadWatch late_threads(so.cpus);  // issue 19: threads outside the arm's CPUs flag the trial
  std::optional<detail::InterferenceLoad> load;  // the condition's hog, on for the whole trial
  if (!slot.condition.empty()) load.emplace(inv, cls, condition_of(cls, slot), so.cpus);
  WorkloadRun run;
  try {
    if (cls.workload.type == "collective") {
      if (!session) throw InputError("class " + cls.name + ": collective workloads run under mpirun");
      run = detail::collective_trial(inv, config, cls, slot.arm, *session);
    } else {
      run = cls.workload.type == "pipeline" ? pipeline_trial(inv, config, cls, slot.arm, stop)
                                            : staging_trial(inv, config, cls, slot.arm, stop);
    }
  } catch (...) {
    sampler.stop();
    throw;
  }
  nlohmann::json interference = load ? load->finish() : nlohmann::json();
  nlohmann::json system = hostpipe::sysmetrics::sampler_summary_to_json(sampler.stop(), false);
  if (run.stopped) return nullptr;
  std::vector<std::string> flags;
  late_threads.finish(run.placement, flags);
  std::string placement = worst_placement_status(run);
  if (placement != "verified") flags.push_back("placement_" + placement);
  if (run.placement.degenerate) flags.push_back("degenerate");
  nlohmann::json summary = summarize_steps(run.step_ns, flags);
  summary.update(run.extra);
  if (run.extra.contains("bytes_per_step"))
    summary["bytes_per_s"] = run.extra["bytes_per_step"].get<double>() * summary["throughput_steps_s"].get<double>();
  nlohmann::json line = {
      {"class", slot.class_name},
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
      {"system", system},
      {"flags", flags}};
  if (load) {
    line["condition"] = slot.condition;
    line["interference"] = std::move(interference);
  }
  return line;
}

std::string cell_key(const std::string& arm, const std::string& condition) {
  return condition.empty() ? arm : arm + "@" + condition;
}

}  // namespace placebench::harness
