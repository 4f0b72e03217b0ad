// A run directory: run.json (context, written first), trials.jsonl (one line per finished trial,
// appended and fsync'ed before the next trial starts) and summary.json (written at the end, atomically;
// rebuilt from trials.jsonl when missing). kill -9 loses at most the trial in flight.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace placebench::harness {

inline constexpr int kResultsSchemaVersion = 1;

class RunDirectory {
 public:
  // Creates <base>/<YYYYmmdd-HHMMSS>-<host>/ (or `exact` when given) and writes run.json.
  static RunDirectory create(const std::string& base, const std::string& exact, const std::string& host,
                             const nlohmann::json& run);
  // Opens an existing run directory; throws InputError when run.json is missing, unreadable, or of
  // another schema version.
  static RunDirectory open(const std::string& dir);

  const std::string& path() const { return path_; }
  const nlohmann::json& run() const { return run_; }

  void append_trial(const nlohmann::json& trial);
  // Every complete line. A truncated last line (a crash mid-write) is ignored with a warning in
  // `warnings`; with `repair`, it is also cut from the file so appends continue cleanly.
  std::vector<nlohmann::json> read_trials(std::vector<std::string>& warnings, bool repair = false) const;
  void write_summary(const nlohmann::json& summary) const;
  bool has_summary() const;
  nlohmann::json read_summary() const;

 private:
  std::string path_;
  nlohmann::json run_;
};

}  // namespace placebench::harness
