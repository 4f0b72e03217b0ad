// Run directories for the history benchmarks (history_scale.cpp, history_realpath_sim.cpp), written through
// the runner's own writers: run.json by RunDirectory::create (with a config copy and a topology), each trial
// line checked by trial_record_from_json, summary.json by analyze_run and RunDirectory::write_summary; so
// every directory is one `placebench run` could have written, and `history add` reads it as it reads those.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet_fixtures.h"

namespace placebench::bench {

struct RunDirSpec {
  std::string name = "history-bench", command_line = "placebench history benchmark";
  std::string host = "node-0000", start_time = "2026-12-01T10:00:00Z";
  nlohmann::json versions;  // run.json's versions block ({"cuda_driver": "12.4"}); null: none recorded
  int rounds = 10, steps = 40, classes = 2;
  std::vector<std::string> arms = {"local", "unpinned", "remote"};  // the first is the baseline
};

// A run's step times for one trial: (round, class index, arm position) -> step_ns.
using StepTimes = std::function<std::vector<std::int64_t>(int round, int class_index, int position)>;

// Writes the run directory `dir` (its parent must exist; `dir` must not hold a run): every round of every
// staging class (one per GPU) and arm, in that order, each trial's steps from `steps_for`.
inline void write_run_dir(const std::string& dir, const RunDirSpec& spec, const StepTimes& steps_for) {
  using namespace placebench::harness;
  std::string compare;
  for (std::size_t a = 1; a < spec.arms.size(); ++a) compare += (a > 1 ? ", " : "") + spec.arms[a];
  std::string yaml = fmt::format("experiment: {{name: {0}, seed: 1, rounds: {{min: {1}, max: {1}, looks: 1}}, "
                                 "order: fixed, warmup_steps: 1, steps: {2}}}\nclasses:\n", spec.name, spec.rounds, spec.steps);
  for (int g = 0; g < spec.classes; ++g)
    yaml += fmt::format("  - {{name: staging-gpu{0}, gpu: {0}, workload: {{type: staging, backend: host, bytes: 4M}}, "
                        "arms: {{baseline: {1}, compare: [{2}]}}}}\n", g, spec.arms.front(), compare);
  ExperimentConfig cfg = parse_experiment_config(yaml, spec.name + ".yaml");
  placebench::testing::SyntheticNode n{spec.host};
  nlohmann::json run{{"schema_version", kResultsSchemaVersion}, {"host", spec.host}, {"start_time", spec.start_time},
                     {"placebench_version", "0.1.0"}, {"command_line", spec.command_line}, {"seed", 1},
                     {"order", "fixed"}, {"topology", placebench::testing::synthetic_topology(n)}, {"config", config_to_json(cfg)}};
  if (!spec.versions.is_null()) run["versions"] = spec.versions;
  RunDirectory rd = RunDirectory::create(std::filesystem::path(dir).parent_path().string(), dir, spec.host, run);
  std::vector<TrialRecord> records;
  std::string lines;
  for (int round = 0; round < spec.rounds; ++round)
    for (int c = 0; c < spec.classes; ++c)
      for (int position = 0; position < static_cast<int>(spec.arms.size()); ++position) {
        std::vector<std::int64_t> steps = steps_for(round, c, position);
        std::vector<std::string> flags;
        nlohmann::json line{{"class", cfg.classes[static_cast<std::size_t>(c)].name}, {"arm", spec.arms[static_cast<std::size_t>(position)]},
                            {"round", round}, {"position", position}, {"workload", "staging"}, {"backend", "host"},
                            {"warmup_steps", 1}, {"step_ns", steps}, {"summary", summarize_steps(steps, flags)}};
        line["flags"] = flags;
        lines += line.dump() + "\n";
        records.push_back(trial_record_from_json(line, cfg));
      }
  write_file_atomically(dir + "/trials.jsonl", lines);
  std::vector<ClassAnalysis> classes = analyze_run(cfg, records);
  rd.write_summary({classes, plan_finished(classes), records.size()});
}

}  // namespace placebench::bench
