// The checks of results files read back (run_directory.cpp): run.json and its config copy, each line of
// trials.jsonl, summary.json. Each failure is one InputError "PLACE: KEY: PROBLEM; FIX", so nothing
// that reads these files later meets a missing key or a value of the wrong type.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>

#include "placebench/harness/runner/config.h"

namespace placebench::harness::detail {

// run.json: an object of this schema version, its mpi block, and its config copy (every key
// config_from_json reads, in the ranges a config file allows); returns the config.
ExperimentConfig check_run_json(const nlohmann::json& run, const std::string& run_path);

// The trials read so far: (class, round, arm) -> line number. A run never repeats a slot.
using TrialSlots = std::map<std::tuple<std::string, std::int64_t, std::string>, std::size_t>;

// One line of trials.jsonl: class, arm and round of `config` (when known), step_ns, the summary's
// statistics, flags; `place` is "PATH:LINE".
void check_trial_line(const nlohmann::json& trial, const std::optional<ExperimentConfig>& config,
                      const std::string& place, std::size_t line_no, TrialSlots& seen);

// summary.json: complete, trials, and every class and arm field compare and check read; `fix` ends each
// message.
void check_summary_json(const nlohmann::json& summary, const std::string& path, const std::string& fix);

}  // namespace placebench::harness::detail
