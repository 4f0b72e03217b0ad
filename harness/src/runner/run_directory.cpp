// Crash-safe results on disk, read back through the checks of results_checks.h (see run_directory.h).
#include "placebench/harness/runner/run_directory.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/input_file.h"
#include "results_checks.h"

namespace placebench::harness {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

void write_all_fsync(const std::string& path, const std::string& data, int flags) {
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    throw std::runtime_error(path + ": fsync failed: " + std::strerror(errno));
  }
  ::close(fd);
}

// Write to a temporary file, fsync, rename: readers see the old or the new file, never half of one.
void write_atomically(const std::string& path, const std::string& data) {
  std::string tmp = path + ".tmp";
  write_all_fsync(tmp, data, O_WRONLY | O_CREAT | O_TRUNC);
  fs::rename(tmp, path);
}

// The whole file, or an InputError: "PATH: <missing>" when absent, else why it cannot be read and `fix`.
std::string read_file(const std::string& path, const std::string& missing, const std::string& fix) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw InputError(path + ": " + missing);
  if (fs::is_directory(st)) throw InputError(path + ": a directory, not a file; " + fix);
  return read_input_file(path, fix, kMaxResultsBytes);  // a FIFO or device refused, the size bounded
}

std::string timestamp() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

}  // namespace

JsonSyntaxProblem json_syntax_problem(const std::string& text, const json::parse_error& e) {
  JsonSyntaxProblem p;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    p.why = "the file is empty";
    return p;
  }
  std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
  p.line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
  // nlohmann: "[json.exception.parse_error.101] parse error at line L, column C: syntax error while
  // parsing X - WHY; expected Y": keep WHY (and what was expected), without the internal prefix.
  std::string what = e.what();
  auto dash = what.find(" - ");
  p.why = dash != std::string::npos ? what.substr(dash + 3) : what.substr(what.rfind(": ") + 2);
  std::replace(p.why.begin(), p.why.end(), ';', ',');
  // An error at the very end (after the last non-blank character) is a file cut short, whatever was being
  // parsed there.
  std::size_t last = text.find_last_not_of(" \t\r\n");
  if (e.byte > last + 1 || p.why.find("end of input") != std::string::npos) p.why = "cut short: " + p.why;
  return p;
}

RunDirectory RunDirectory::create(const std::string& base, const std::string& exact, const std::string& host,
                                  const json& run) {
  RunDirectory d;
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
  if (fs::exists(fs::path(d.path_) / "trials.jsonl"))
    throw InputError(d.path_ + ": already holds a run; continue it with --resume " + d.path_ + " or choose another --out");
  d.run_ = run;
  if (run.contains("config")) d.config_ = config_from_json(run["config"], (fs::path(d.path_) / "run.json").string());
  write_atomically((fs::path(d.path_) / "run.json").string(), run.dump(2) + "\n");
  write_all_fsync((fs::path(d.path_) / "trials.jsonl").string(), "", O_WRONLY | O_CREAT | O_TRUNC);
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
  try {
    d.run_ = json::parse(text);
  } catch (const json::parse_error& e) {
    JsonSyntaxProblem p = json_syntax_problem(text, e);
    throw InputError(fmt::format("{}:{}: not valid JSON ({}); {}", run_path, p.line, p.why, lost));
  }
  d.config_ = detail::check_run_json(d.run_, run_path);
  return d;
}

void RunDirectory::append_trial(const json& trial) {
  write_all_fsync((fs::path(path_) / "trials.jsonl").string(), trial.dump() + "\n", O_WRONLY | O_CREAT | O_APPEND);
}

std::vector<TrialRecord> RunDirectory::read_trial_records(std::vector<std::string>& warnings, bool repair) const {
  std::string path = (fs::path(path_) / "trials.jsonl").string();
  std::string text = read_file(path,
                               "missing: every run directory has one (its trials); restore it, or start a new run",
                               "restore trials.jsonl, or start a new run");
  std::vector<TrialRecord> trials;
  detail::TrialSlots seen;
  std::size_t pos = 0, good_end = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    ++line_no;
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    auto j = json::parse(line, nullptr, false);
    bool last = nl == std::string::npos || nl + 1 >= text.size();
    if (j.is_discarded() || nl == std::string::npos) {
      if (!last)
        throw InputError(fmt::format("{}:{}: not a JSON trial line (only the last line may be cut short); "
                                     "remove that line by hand to read the rest", path, line_no));
      warnings.push_back(fmt::format("{}:{}: truncated last line (a trial interrupted while being written) ignored",
                                     path, line_no));
      break;
    }
    trials.push_back(detail::check_trial_line(std::move(j), config_, fmt::format("{}:{}", path, line_no), line_no, seen));
    pos = nl + 1;
    good_end = pos;
  }
  if (repair && good_end < text.size()) fs::resize_file(path, good_end);
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
  write_atomically(path, summary.dump(2) + "\n");
}

bool RunDirectory::has_summary() const { return fs::exists(fs::path(path_) / "summary.json"); }

RunSummary RunDirectory::read_summary() const {
  std::string path = (fs::path(path_) / "summary.json").string();
  const std::string fix = fmt::format("rebuild it from trials.jsonl with `placebench compare {} --write-summary`", path_);
  std::string text = read_file(path, "missing; " + fix, fix);
  json s;
  try {
    s = json::parse(text);
  } catch (const json::parse_error& e) {
    JsonSyntaxProblem p = json_syntax_problem(text, e);
    throw InputError(fmt::format("{}:{}: not valid JSON ({}); {}", path, p.line, p.why, fix));
  }
  return summary_from_json(s, path, fix);
}

}  // namespace placebench::harness
