// Cost of the statistics the runner computes per comparison: Hodges-Lehmann estimate + rank-test CI
// (paired: Walsh averages; unpaired: pairwise differences) for n = 1k, 10k, 100k, which must stay well
// under 2 s at 100k (O(n log n) selection, selection.h); and the error rates and power of the shipped
// default plan, simulated through the real analysis path (runner/simulate.h: analyze_run and the class
// stop rule), whose counters are the figures of docs/performance.md.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "micro_scale.h"
#include "placebench/harness/runner/simulate.h"
#include "placebench/stats/hodges_lehmann.h"
#include "placebench/stats/quantile.h"
#include "placebench/stats/rank_tests.h"

namespace stats = placebench::stats;
namespace pb = placebench::harness;

namespace {

std::vector<double> normal_sample(std::size_t n, double mean, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(mean, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

void BM_StatsPairedHodgesLehmannCi(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<double> d = normal_sample(n, 0.1, 1);
  for (auto _ : state) benchmark::DoNotOptimize(stats::hodges_lehmann_one_sample(d, 0.95));
  state.SetComplexityN(state.range(0));
  state.counters["walsh_averages"] = static_cast<double>(n) * static_cast<double>(n + 1) / 2.0;
}
BENCHMARK(BM_StatsPairedHodgesLehmannCi)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oNLogN);

void BM_StatsUnpairedHodgesLehmannCi(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<double> x = normal_sample(n, 0.0, 2), y = normal_sample(n, 0.2, 3);
  for (auto _ : state) benchmark::DoNotOptimize(stats::hodges_lehmann_two_sample(x, y, 0.95));
  state.SetComplexityN(state.range(0));
  state.counters["differences"] = static_cast<double>(n) * static_cast<double>(n);
}
BENCHMARK(BM_StatsUnpairedHodgesLehmannCi)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oNLogN);

// What `placebench stats A B --paired` computes on a million pairs (cmd_stats.cpp, after reading the
// files): both medians with their CIs (selection: nth_element, no sort), the paired Hodges-Lehmann shift
// with its CI (one sort, then selection over the Walsh averages) and the signed-rank test (one sort).
// The target is under 2 s of user time for the whole command (docs/performance.md).
void BM_StatsCommandPaired(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<double> a = normal_sample(n, 100.0, 4), b = normal_sample(n, 100.2, 5);
  for (auto _ : state) {
    benchmark::DoNotOptimize(stats::quantile_ci(a, 0.5, 0.95));
    benchmark::DoNotOptimize(stats::quantile_ci(b, 0.5, 0.95));
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = b[i] - a[i];
    benchmark::DoNotOptimize(stats::hodges_lehmann_one_sample(d, 0.95));
    benchmark::DoNotOptimize(stats::wilcoxon_signed_rank(d));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_StatsCommandPaired)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// The shipped default plan (configs/default.yaml: one class, local against unpinned and remote, both
// realised, so two comparisons; looks at 10..60; margin 2%), 4% per-round noise.
pb::RunSimulation default_plan(int experiments, double margin_pct) {
  pb::RunSimulation s;
  s.experiments = placebench::micro::scaled(experiments, 40);
  s.seed = 20261201;
  s.config = pb::default_experiment_config();
  for (auto& c : s.config.classes) c.margin_pct = margin_pct;
  return s;
}

// A/A: no arm differs. Counter any_false_different: experiments where some arm was called faster/slower.
void BM_DefaultPlanAa(benchmark::State& state) {
  pb::RunSimulation s = default_plan(1000, static_cast<double>(state.range(0)));
  s.ar_phi = static_cast<double>(state.range(1)) / 10.0;
  pb::SimulationResult r;
  for (auto _ : state) benchmark::DoNotOptimize(r = pb::simulate_runs(s));
  state.counters["any_false_different"] = static_cast<double>(r.any_false_different) / r.experiments;
  state.counters["any_false_different_unflagged"] = static_cast<double>(r.any_false_different_unflagged) / r.experiments;
  state.counters["any_flagged"] = static_cast<double>(r.any_flagged) / r.experiments;
  state.counters["mean_rounds"] = r.mean_rounds;
}
// {margin %, AR coefficient x 10}: margin 0 and the default 2%, independent, AR(0.5) and AR(0.8) rounds.
BENCHMARK(BM_DefaultPlanAa)->Args({0, 0})->Args({2, 0})->Args({0, 5})->Args({2, 5})->Args({0, 8})->Args({2, 8})
    ->Iterations(1)->Unit(benchmark::kSecond);

// A true 2.5% slowdown of remote, just beyond the 2% margin: how often it is called equivalent (falsely),
// with independent, AR(0.5) and AR(0.8) rounds (arg: AR coefficient x 10).
void BM_DefaultPlanFalseEquivalent(benchmark::State& state) {
  pb::RunSimulation s = default_plan(1000, 2.0);
  s.ar_phi = static_cast<double>(state.range(0)) / 10.0;
  s.effect_pct["staging-4m/remote"] = 2.5;
  pb::SimulationResult r;
  for (auto _ : state) benchmark::DoNotOptimize(r = pb::simulate_runs(s));
  const pb::ArmTally& t = r.arms["staging-4m/remote"];
  state.counters["false_equivalent"] = static_cast<double>(t.equivalent) / r.experiments;
  state.counters["slower_rate"] = static_cast<double>(t.slower) / r.experiments;
  state.counters["mean_rounds"] = r.mean_rounds;
}
BENCHMARK(BM_DefaultPlanFalseEquivalent)->Arg(0)->Arg(5)->Arg(8)->Iterations(1)->Unit(benchmark::kSecond);

// A true effect on remote (unpinned 0): how often remote is called slower, the rounds its comparison
// used, and the rounds a fixed one-look design needs for the same power.
void BM_DefaultPlanPower(benchmark::State& state) {
  const double effect = static_cast<double>(state.range(0));
  pb::RunSimulation s = default_plan(1000, 2.0);
  s.effect_pct["staging-4m/remote"] = effect;
  pb::SimulationResult r;
  int fixed = 0, fixed90 = 0;
  for (auto _ : state) {
    r = pb::simulate_runs(s);
    const pb::ArmTally& t = r.arms["staging-4m/remote"];
    const double power = static_cast<double>(t.slower) / r.experiments;
    pb::RunSimulation f = s;
    f.experiments = placebench::micro::scaled(400, 20);
    fixed = power > 0.05 ? pb::fixed_rounds_for_power(f, "staging-4m/remote", "slower", power, 200) : 0;
    fixed90 = pb::fixed_rounds_for_power(f, "staging-4m/remote", "slower", 0.90, 200);
  }
  const pb::ArmTally& t = r.arms["staging-4m/remote"];
  state.counters["slower_rate"] = static_cast<double>(t.slower) / r.experiments;
  state.counters["arm_mean_rounds"] = t.mean_rounds;
  state.counters["class_mean_rounds"] = r.mean_rounds;  // the class runs until its no-effect arm is decided too
  state.counters["fixed_rounds_same_power"] = fixed;
  state.counters["rounds_vs_fixed"] = fixed > 0 ? t.mean_rounds / fixed : 0;
  state.counters["class_rounds_vs_fixed"] = fixed > 0 ? r.mean_rounds / fixed : 0;
  state.counters["fixed_rounds_90pct_power"] = fixed90;  // 201: no fixed design up to 200 rounds gets there
  state.counters["unpinned_false_different"] =
      static_cast<double>(r.arms["staging-4m/unpinned"].faster + r.arms["staging-4m/unpinned"].slower) / r.experiments;
}
BENCHMARK(BM_DefaultPlanPower)->Arg(3)->Arg(5)->Arg(10)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
