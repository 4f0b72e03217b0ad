// The checks of results files read back (run_directory.cpp): run.json and its config copy, each line of
// trials.jsonl, summary.json. Each failure is one InputError "PLACE: KEY: PROBLEM; FIX", so nothing
// that reads these files later meets a missing key or a value of the wrong type.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/trial.h"

namespace placebench::harness::detail {

inline constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();

// The checks of one results file (or line): each failure is one InputError "PLACE: KEY: PROBLEM; FIX".
// `where` is the key path of the object looked into ("config.classes[0]"; "" at the top); each getter
// returns the value it checked.
class Checker {
 public:
  Checker(std::string place, std::string fix) : place_(std::move(place)), fix_(std::move(fix)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  void expect(bool ok, const std::string& key, const std::string& what, const nlohmann::json& got) const;
  static std::string join(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }
  static std::string item(const std::string& where, std::size_t i);
  const std::string& place() const { return place_; }

  const nlohmann::json& at(const nlohmann::json& obj, const std::string& where, const std::string& key) const;
  const nlohmann::json& object(const nlohmann::json& obj, const std::string& where, const std::string& key) const;
  const nlohmann::json& list(const nlohmann::json& obj, const std::string& where, const std::string& key) const;
  std::string text(const nlohmann::json& obj, const std::string& where, const std::string& key) const;
  std::string one_of(const nlohmann::json& obj, const std::string& where, const std::string& key,
                     const std::vector<std::string>& accepted) const;
  bool boolean(const nlohmann::json& obj, const std::string& where, const std::string& key) const;
  // hi == kNoLimit: "a whole number >= lo".
  std::int64_t integer(const nlohmann::json& obj, const std::string& where, const std::string& key, std::int64_t lo,
                       std::int64_t hi) const;
  double number(const nlohmann::json& obj, const std::string& where, const std::string& key, double lo, double hi) const;
  // A key that may be absent or null; otherwise of the kind `check` accepts.
  template <class Check>
  void optional(const nlohmann::json& obj, const std::string& key, Check check) const {
    auto it = obj.find(key);
    if (it != obj.end() && !it->is_null()) check();
  }

 private:
  std::string place_, fix_;
};

// A value as a message shows it: "text" (escaped: a message stays one line), 12, null, a list, a map.
std::string describe(const nlohmann::json& v);

// run.json: an object of this schema version, its mpi block, and its config copy (read by
// config_from_json, which checks every key it reads); returns the config.
ExperimentConfig check_run_json(const nlohmann::json& run, const std::string& run_path);

// The trials read so far: (class, round, cell_key(arm, condition)) -> line number. A run never repeats a slot.
using TrialSlots = std::map<std::tuple<std::string, std::int64_t, std::string>, std::size_t>;

// One line of trials.jsonl, checked and read: class, arm and round of `config` (when known), step_ns,
// the summary's statistics, flags, position and placement when present; `place` is "PATH:LINE".
TrialRecord check_trial_line(nlohmann::json trial, const std::optional<ExperimentConfig>& config,
                             const std::string& place, std::size_t line_no, TrialSlots& seen);

// summary.json: complete, trials, and every class and arm field compare and check read; `fix` ends each
// message.
void check_summary_json(const nlohmann::json& summary, const std::string& path, const std::string& fix);

}  // namespace placebench::harness::detail
