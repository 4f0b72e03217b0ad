// Cost of the statistics the runner computes per comparison: Hodges-Lehmann estimate + rank-test CI
// (paired: Walsh averages; unpaired: pairwise differences) for n = 1k, 10k, 100k, which must stay well
// under 2 s at 100k (O(n log n) selection, selection.h); and the A/A and power simulations of the
// sequential rule (simulation.h), whose counters report the false-verdict rate and rounds used.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "placebench/harness/stats/hodges_lehmann.h"
#include "placebench/harness/stats/simulation.h"

namespace stats = placebench::harness::stats;

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

// 200 experiments of the plan (min 5, max 30 rounds, margin 2%, target half-width 3%).
void simulate(benchmark::State& state, double effect_pct) {
  stats::SimulationConfig c;
  c.true_effect_pct = effect_pct;
  stats::SimulationSummary s;
  for (auto _ : state) {
    s = stats::simulate_sequential(c);
    benchmark::DoNotOptimize(s);
  }
  state.counters["decisive_rate"] = s.decisive_rate;
  state.counters["mean_rounds_fraction"] = s.mean_rounds_fraction;
  state.counters["agreement_with_fixed"] = s.agreement_with_fixed;
}

void BM_StatsSimulationAa(benchmark::State& state) { simulate(state, 0.0); }
BENCHMARK(BM_StatsSimulationAa)->Unit(benchmark::kMillisecond);

void BM_StatsSimulationPowerTenPercent(benchmark::State& state) { simulate(state, -10.0); }
BENCHMARK(BM_StatsSimulationPowerTenPercent)->Unit(benchmark::kMillisecond);

}  // namespace
