// `placebench queue` with a 2000-class mix (target: < 10 s, docs/performance.md#queue-replay): 2000
// classes (about 160 KB of YAML, twice the 80 KB mix that took 47 s before the replay's bound) of
// twelve worker shapes, a third of them 8-GPU workers that strict locality can never place (they wait
// through the whole replay, the case that made every pass scan every class), on 64 hosts of 2 NUMA nodes
// x 4 GPUs, 24 h of arrivals (about 9600 jobs), all 12 combinations. Each iteration parses the mix,
// replays it and renders the JSON.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "placebench/harness/decisions/queue_replay.h"

namespace {

namespace decisions = placebench::harness::decisions;

std::string mix_of(int classes) {
  std::string yaml = "seed: 11\nhorizon: 24h\ndrain: 12h\nclasses:\n";
  const int gpus[] = {1, 2, 4, 8}, workers[] = {1, 2, 4};
  for (int k = 0; k < classes; ++k)
    yaml += fmt::format("  - {{name: class-{:04}, arrivals_per_hour: 0.2, workers: {}, gpus_per_worker: {}, cpus_per_worker: {}, "
                        "duration: {}m, duration_remote: {}m}}\n",
                        k, workers[k % 3], gpus[k % 4], 4 * gpus[k % 4], 30 + k % 90, 36 + k % 100);
  return yaml;
}

decisions::ClusterInventory hosts(int n) {
  decisions::ClusterInventory inv;
  inv.file = "bench";
  for (int h = 0; h < n; ++h) {
    decisions::ClusterNode node{fmt::format("host-{:02}", h), {}};
    for (int k = 0; k < 2; ++k) node.numa.push_back({k, 4, 4, 32, 32, std::nullopt, std::nullopt});
    inv.nodes.push_back(node);
  }
  return inv;
}

void BM_QueueReplay2000Classes(benchmark::State& state) {
  const std::string yaml = mix_of(2000);
  const decisions::ClusterInventory inv = hosts(64);
  int jobs = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    decisions::QueueReplay r = decisions::replay_queue(inv, decisions::parse_job_mix(yaml, "bench-mix.yaml"),
                                                       decisions::all_combinations());
    std::string out = decisions::queue_replay_to_json(r).dump();
    jobs = r.jobs;
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["classes"] = 2000;
  state.counters["jobs"] = jobs;
  state.counters["mix_bytes"] = static_cast<double>(yaml.size());
  state.counters["json_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_QueueReplay2000Classes)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
