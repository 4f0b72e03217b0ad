// Crash-safe results on disk, read back through the checks of results_checks.h (see run_directory.h).
#include "placebench/harness/runner/run_directory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/input_limits.h"
#include "results_checks.h"

namespace placebench::harness {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

// Text that run.json and summary.json record must be UTF-8 (JSON's own rule): a path that is not is
// refused before anything is created.
bool valid_utf8(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

// The whole file, or an InputError: "PATH: <missing>" when absent, else why it cannot be read and `fix`.
std::string read_file(const std::string& path, const std::string& missing, const std::string& fix) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw InputError(path + ": " + missing);
  if (fs::is_directory(st)) throw InputError(path + ": a directory, not a file; " + fix);
  return read_input_file(path, fix, kMaxResultsBytes);  // a FIFO or device refused, the size bounded
}

std::string timestamp() { return utc_now("%Y%m%d-%H%M%S"); }

// A path as a message shows it: bytes that are not printable ASCII as \xNN, so the line stays readable.
std::string describe_path(const std::string& path) {
  std::string out;
  for (char c : path) {
    const auto ch = static_cast<unsigned char>(c);
    out += ch >= 0x20 && ch < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", ch);
  }
  return out;
}

// A new run never goes into a directory that holds one: its files would be replaced.
void refuse_recorded_run(const std::string& dir) {
  for (const char* name : {"run.json", "trials.jsonl", "summary.json"}) {
    std::error_code ec;
    if (fs::exists(fs::path(dir) / name, ec))
      throw InputError(fmt::format("--out {} already holds a run; use --resume {} or another --out", dir, dir));
  }
}

}  // namespace

RunDirectory RunDirectory::create(const std::string& base, const std::string& exact, const std::string& host,
                                  const json& run) {
  // Everything is checked before anything is created, so a refused run leaves no directory behind.
  const std::string where = exact.empty() ? base : exact;
  if (!valid_utf8(where))
    throw InputError(fmt::format("{} {}: the path is not valid UTF-8 (run.json records it as text); choose a name in UTF-8",
                                 exact.empty() ? "experiment.output" : "--out", describe_path(where)));
  std::string run_text;
  try {
    run_text = run.dump(2) + "\n";
  } catch (const json::type_error&) {
    throw InputError("run: the command line or config holds text that is not valid UTF-8 (run.json records it); "
                     "use UTF-8 file names and values");
  }
  if (!exact.empty()) refuse_recorded_run(exact);
  RunDirectory d;
  // run.json passes its own reader's check before it is written (what `run` accepts, its readers accept
  // afterwards): a safety net behind the option checks, so no run leaves a directory it cannot read back.
  try {
    d.config_ = detail::check_run_json(run, "run.json (to be written)");
  } catch (const InputError& e) {
    throw InputError(std::string("run: refused before anything is written, as its run.json would not read back: ") + e.what());
  }
  std::error_code ec;
  if (exact.empty()) {
    // <timestamp>-<host>, or -2, -3, ... when another run took that name in the same second: mkdir of the
    // last component is atomic, so two runs started together never share a directory.
    fs::create_directories(base, ec);
    if (ec) throw InputError(base + ": cannot create the results directory (" + ec.message() + "); choose another with --out");
    std::string name = (fs::path(base) / (timestamp() + "-" + (host.empty() ? "host" : host))).string();
    for (int k = 1; !fs::create_directory(d.path_ = k == 1 ? name : name + "-" + std::to_string(k), ec); ++k)
      if (ec || k >= 1000)
        throw InputError(d.path_ + ": cannot create the results directory (" + (ec ? ec.message() : "too many runs this second") +
                         "); choose another with --out");
  } else {
    d.path_ = exact;
    fs::create_directories(d.path_, ec);
  }
  if (ec) throw InputError(d.path_ + ": cannot create the results directory (" + ec.message() + "); choose another with --out");
  d.run_ = run;
  const std::string fix = "free space on that file system or make the directory writable, then start the run again "
                          "with another --out";
  write_file_atomically((fs::path(d.path_) / "run.json").string(), run_text, fix);
  write_file_atomically((fs::path(d.path_) / "trials.jsonl").string(), "", fix);
  return d;
}

RunDirectory RunDirectory::open(const std::string& dir) {
  RunDirectory d;
  d.path_ = dir;
  std::string run_path = (fs::path(dir) / "run.json").string();
  if (!fs::exists(run_path))
    throw InputError(dir + ": not a placebench run directory (no run.json); give a directory written by `placebench run`");
  const std::string lost = "the run's context is lost: restore run.json, or start a new run";
  std::string text = read_file(run_path, "missing; " + lost, lost);
  d.run_ = parse_results_json(text, run_path, lost);
  d.config_ = detail::check_run_json(d.run_, run_path);
  return d;
}

void RunDirectory::append_trial(const json& trial) {
  append_durably((fs::path(path_) / "trials.jsonl").string(), trial.dump() + "\n",
                 fmt::format("free space on that file system, then continue with `placebench run --resume {}`", path_));
}

std::vector<TrialRecord> RunDirectory::read_trial_records(std::vector<std::string>& warnings, bool repair) const {
  std::string path = (fs::path(path_) / "trials.jsonl").string();
  std::string text = read_file(path,
                               "missing: every run directory has one (its trials); restore it, or start a new run",
                               "restore trials.jsonl, or start a new run");
  std::vector<TrialRecord> trials;
  detail::TrialSlots seen;
  JsonLines lines = parse_json_lines(text, path, "a JSON trial line", [&](std::size_t n, json line) {
    trials.push_back(detail::check_trial_line(std::move(line), config_, fmt::format("{}:{}", path, n), n, seen));
  });
  if (lines.cut_line)
    warnings.push_back(fmt::format("{}:{}: truncated last line (a trial interrupted while being written) ignored", path,
                                   *lines.cut_line));
  const std::size_t good_end = lines.good_end;
  const bool unterminated = lines.unterminated;
  if (repair && good_end < text.size()) fs::resize_file(path, good_end);
  // Appends continue on a line of their own.
  if (repair && unterminated)
    append_durably(path, "\n", fmt::format("free space on that file system, then resume again with --resume {}", path_));
  return trials;
}

std::vector<json> RunDirectory::read_trials(std::vector<std::string>& warnings, bool repair) const {
  std::vector<json> lines;
  for (TrialRecord& t : read_trial_records(warnings, repair)) lines.push_back(std::move(t.line));
  return lines;
}

TrialRecord trial_record_from_json(json line, const std::optional<ExperimentConfig>& config, const std::string& place) {
  detail::TrialSlots seen;
  return detail::check_trial_line(std::move(line), config, place, 1, seen);
}

void RunDirectory::write_summary(const RunSummary& summary_data) const {
  const json summary = summary_to_json(summary_data);
  std::string path = (fs::path(path_) / "summary.json").string();
  if (fs::is_directory(path)) throw InputError(path + ": a directory, not a file; move it away so the summary can be written");
  // What is written reads back (summary.json's one reader): a summary its readers would refuse is a bug
  // here, never a file that makes the run directory unreadable.
  try {
    detail::check_summary_json(summary, path, "");
  } catch (const InputError& e) {
    throw std::logic_error(std::string("summary.json not written, as it would not read back (a placebench bug): ") + e.what());
  }
  write_file_atomically(path, summary.dump(2) + "\n",
                        fmt::format("free space on that file system or make {} writable, then rebuild the summary with "
                                    "`placebench compare {} --write-summary`", path_, path_));
}

bool RunDirectory::has_summary() const { return fs::exists(fs::path(path_) / "summary.json"); }

RunSummary RunDirectory::read_summary() const {
  std::string path = (fs::path(path_) / "summary.json").string();
  const std::string fix = fmt::format("rebuild it from trials.jsonl with `placebench compare {} --write-summary`", path_);
  std::string text = read_file(path, "missing; " + fix, fix);
  return summary_from_json(parse_results_json(text, path, fix), path, fix);
}

}  // namespace placebench::harness
