// `placebench fleet` over 64 nodes (target: <= 30 s on the development VM, docs/performance.md): 64
// synthetic node run directories as the default experiment's plan writes them at most (60 rounds, 100
// steps per trial; two classes, one per GPU, two arms each: 240 trials per node), made once by the
// fixture generator of the tests (tests/support/fleet_fixtures.h): 8 generated nodes (node-07 20% slower)
// and 56 copies of the first 7 under other names, as generating costs more than reading. Each iteration
// reads all 64 through the run directory's readers, judges the fleet and renders every output.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "fleet_fixtures.h"
#include "placebench/harness/fleet/fleet.h"

namespace {

namespace fleet = placebench::harness::fleet;

// <tmp>/placebench-fleet-bench-<pid>/node-NN/run, node-07 20% slower; made on first use, removed at exit.
const std::string& fleet_of_64() {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path().string() + "/placebench-fleet-bench-" + std::to_string(::getpid());
    std::filesystem::remove_all(d);
    auto run_of = [&](int i) { return fmt::format("{}/node-{:02}/run", d, i); };
    for (int i = 0; i < 64; ++i) {
      placebench::testing::SyntheticNode n{fmt::format("node-{:02}", i)};
      std::filesystem::create_directories(d + "/" + n.host);
      if (i >= 8) {
        placebench::testing::copy_synthetic_node(run_of(i % 7), run_of(i), n.host);
        continue;
      }
      n.rounds = 60;
      n.steps = 100;
      if (i == 7) n.slowdown = 1.2;
      placebench::testing::write_synthetic_node(run_of(i), n);
    }
    std::atexit([] { std::filesystem::remove_all(std::filesystem::temp_directory_path().string() + "/placebench-fleet-bench-" +
                                                 std::to_string(::getpid())); });
    return d;
  }();
  return dir;
}

void BM_Fleet64Nodes(benchmark::State& state) {
  const std::string& dir = fleet_of_64();
  std::size_t suspects = 0, bytes = 0;
  for (auto _ : state) {
    fleet::FleetReport r = fleet::analyze_fleet(fleet::load_fleet({dir}), fleet::FleetOptions{});
    std::string out = fleet::fleet_to_json(r, "2026-12-01T00:00:00Z").dump(2) + fleet::render_fleet_junit(r, "") +
                      fleet::render_fleet_html(r, "") + fleet::render_fleet_prometheus(r) + fleet::render_fleet_table(r);
    suspects = r.suspects.size();
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["nodes"] = 64;
  state.counters["suspects"] = static_cast<double>(suspects);
  state.counters["output_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Fleet64Nodes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
