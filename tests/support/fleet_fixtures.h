// Synthetic node run directories for the fleet view's tests and benchmark: each node a real run directory
// (run.json with a config copy and a topology, trials.jsonl, summary.json) written through the runner's
// own writers, with step times drawn from a fixed generator, so every file is one `placebench run` could
// have written and the same arguments give the same bytes.
#pragma once
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::testing {

struct SyntheticNode {
  std::string host;
  double slowdown = 1.0;          // step times x this (1.3: 30% slower), on every class
  int slow_gpu = -1;              // with >= 0: only that GPU's class is slowed
  bool swap_gpu1_numa = false;    // GPU 1 on NUMA node 0 instead of 1 (a topology mismatch)
  int rounds = 10;
  int steps = 40;
  std::string start_time = "2026-12-01T10:00:00Z";
};

// The topology `placebench topo --json` prints for a 2-socket, 2-GPU node.
inline nlohmann::json synthetic_topology(const SyntheticNode& n) {
  using nlohmann::json;
  json gpus = json::array();
  for (int g = 0; g < 2; ++g)
    gpus.push_back({{"index", g}, {"name", "NVIDIA H100 80GB HBM3"}, {"pci_bus_id", "0000:" + std::to_string(0x18 + g * 0x80) + ":00.0"},
                    {"numa_node", g == 1 && n.swap_gpu1_numa ? 0 : g}, {"local_cpus", g ? "16-31" : "0-15"},
                    {"os_devices", json::array()}, {"notes", json::array()}});
  return {{"schema_version", 1}, {"source", "synthetic"}, {"host", n.host}, {"cores", 32}, {"pus", 64},
          {"packages", json::array({{{"os_index", 0}, {"cpus", "0-15"}}, {{"os_index", 1}, {"cpus", "16-31"}}})},
          {"numa_nodes", json::array({{{"os_index", 0}, {"cpus", "0-15"}, {"memory_bytes", 1LL << 37}},
                                      {{"os_index", 1}, {"cpus", "16-31"}, {"memory_bytes", 1LL << 37}}})},
          {"distances", nullptr}, {"gpus", gpus},
          {"nics", json::array({{{"kind", "network"}, {"name", "mlx5_0"}, {"numa_node", 0}, {"pci_bus_id", "0000:1a:00.0"}},
                                {{"kind", "network"}, {"name", "mlx5_1"}, {"numa_node", 1}, {"pci_bus_id", "0000:9a:00.0"}}})},
          {"allowed", {{"cpus", "0-31"}, {"mems", "0-1"}}}, {"notes", json::array()}};
}

// Two classes, one per GPU: staging local (baseline) against remote, every round planned.
inline harness::ExperimentConfig synthetic_config(const SyntheticNode& n) {
  std::string yaml = "experiment: {name: fleet-synthetic, seed: 1, rounds: {min: " + std::to_string(n.rounds) +
                     ", max: " + std::to_string(n.rounds) + ", looks: 1}, order: fixed, warmup_steps: 1, steps: " +
                     std::to_string(n.steps) + "}\nclasses:\n";
  for (int g = 0; g < 2; ++g)
    yaml += "  - {name: staging-gpu" + std::to_string(g) + ", gpu: " + std::to_string(g) +
            ", workload: {type: staging, backend: host, bytes: 4M}, arms: {baseline: local, compare: [remote]}}\n";
  return harness::parse_experiment_config(yaml, "synthetic-fleet.yaml");
}

// A fixed generator (SplitMix64) so a node's step times depend only on its host, round and arm.
inline double synthetic_noise(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
}

// Writes the node's run directory at `dir` (which must not hold a run yet).
inline void write_synthetic_node(const std::string& dir, const SyntheticNode& n) {
  using nlohmann::json;
  harness::ExperimentConfig cfg = synthetic_config(n);
  json run{{"schema_version", harness::kResultsSchemaVersion}, {"host", n.host}, {"start_time", n.start_time},
           {"placebench_version", "synthetic"}, {"command_line", "placebench run (synthetic fleet fixture)"},
           {"seed", 1}, {"order", "fixed"}, {"topology", synthetic_topology(n)}, {"config", harness::config_to_json(cfg)}};
  harness::RunDirectory rd = harness::RunDirectory::create(std::filesystem::path(dir).parent_path().string(), dir, n.host, run);
  std::uint64_t state = std::hash<std::string>{}(n.host) ^ 0x5eedULL;
  std::vector<harness::TrialRecord> records;
  std::string lines;  // trials.jsonl, written once (the runner fsyncs each line; a fixture need not)
  for (int round = 0; round < n.rounds; ++round)
    for (std::size_t c = 0; c < cfg.classes.size(); ++c)
      for (int position = 0; position < 2; ++position) {
        const char* arm = position == 0 ? "local" : "remote";
        bool slowed = n.slow_gpu < 0 || n.slow_gpu == static_cast<int>(c);
        double base = 1e6 * (position == 0 ? 1.0 : 1.25) * (slowed ? n.slowdown : 1.0);
        std::vector<std::int64_t> steps;
        for (int s = 0; s < n.steps; ++s) steps.push_back(static_cast<std::int64_t>(base * (1 + 0.02 * synthetic_noise(state))));
        std::vector<std::string> flags;
        json line{{"class", cfg.classes[c].name}, {"arm", arm}, {"round", round}, {"position", position},
                  {"workload", "staging"}, {"backend", "host"}, {"warmup_steps", 1}, {"duration_s", base * n.steps * 1e-9},
                  {"step_ns", steps}, {"summary", harness::summarize_steps(steps, flags)}};
        line["flags"] = flags;
        lines += line.dump() + "\n";
        records.push_back(harness::trial_record_from_json(line, cfg));
      }
  harness::write_file_atomically(dir + "/trials.jsonl", lines);
  std::vector<harness::ClassAnalysis> classes = harness::analyze_run(cfg, records);
  rd.write_summary({classes, harness::plan_finished(classes), records.size()});
}

// A copy of the node run at `from` as host `host` (run.json's host fields rewritten): the same
// measurements under another name, for fleets larger than is worth generating one by one.
inline void copy_synthetic_node(const std::string& from, const std::string& to, const std::string& host) {
  std::filesystem::create_directories(to);
  for (const char* file : {"trials.jsonl", "summary.json"})
    std::filesystem::copy_file(from + "/" + file, to + "/" + file, std::filesystem::copy_options::overwrite_existing);
  nlohmann::json run = harness::RunDirectory::open(from).run();
  run["host"] = host;
  run["topology"]["host"] = host;
  harness::write_file_atomically(to + "/run.json", run.dump(2) + "\n");
}

// A fresh folder `root` holding <host>/run-<HH of start_time> for each node (the layout of a fleet's
// shared results folder).
inline std::string write_fleet_dir(const std::string& root, const std::vector<SyntheticNode>& nodes) {
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  for (const SyntheticNode& n : nodes) {
    std::filesystem::create_directories(root + "/" + n.host);
    write_synthetic_node(root + "/" + n.host + "/run-" + n.start_time.substr(11, 2), n);
  }
  return root;
}

}  // namespace placebench::testing
