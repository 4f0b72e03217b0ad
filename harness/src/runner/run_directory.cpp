// Crash-safe results on disk (see run_directory.h).
#include "placebench/harness/runner/run_directory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace fs = std::filesystem;
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

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

RunDirectory RunDirectory::create(const std::string& base, const std::string& exact, const std::string& host,
                                  const nlohmann::json& run) {
  RunDirectory d;
  d.path_ = exact.empty() ? (fs::path(base) / (timestamp() + "-" + (host.empty() ? "host" : host))).string() : exact;
  std::error_code ec;
  fs::create_directories(d.path_, ec);
  if (ec) throw InputError(d.path_ + ": cannot create the results directory (" + ec.message() + "); choose another with --out");
  if (fs::exists(fs::path(d.path_) / "trials.jsonl"))
    throw InputError(d.path_ + ": already holds a run; continue it with --resume " + d.path_ + " or choose another --out");
  d.run_ = run;
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
  d.run_ = nlohmann::json::parse(read_text(run_path), nullptr, false);
  if (d.run_.is_discarded() || !d.run_.is_object())
    throw InputError(run_path + ": not valid JSON; the run's context is lost, start a new run");
  int version = d.run_.value("schema_version", 0);
  if (version != kResultsSchemaVersion)
    throw InputError(fmt::format("{}: schema_version {} is not the {} this placebench reads; use the placebench "
                                 "version that wrote it", run_path, version, kResultsSchemaVersion));
  return d;
}

void RunDirectory::append_trial(const nlohmann::json& trial) {
  write_all_fsync((fs::path(path_) / "trials.jsonl").string(), trial.dump() + "\n", O_WRONLY | O_CREAT | O_APPEND);
}

std::vector<nlohmann::json> RunDirectory::read_trials(std::vector<std::string>& warnings, bool repair) const {
  std::string path = (fs::path(path_) / "trials.jsonl").string();
  std::string text = read_text(path);
  std::vector<nlohmann::json> trials;
  std::size_t pos = 0, good_end = 0;
  int line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    ++line_no;
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    auto j = nlohmann::json::parse(line, nullptr, false);
    bool last = nl == std::string::npos || nl + 1 >= text.size();
    if (j.is_discarded() || nl == std::string::npos) {
      if (!last)
        throw InputError(fmt::format("{}:{}: not a JSON trial line (only the last line may be cut short); "
                                     "remove that line by hand to read the rest", path, line_no));
      warnings.push_back(fmt::format("{}:{}: truncated last line (a trial interrupted while being written) ignored",
                                     path, line_no));
      break;
    }
    trials.push_back(std::move(j));
    pos = nl + 1;
    good_end = pos;
  }
  if (repair && good_end < text.size()) fs::resize_file(path, good_end);
  return trials;
}

void RunDirectory::write_summary(const nlohmann::json& summary) const {
  write_atomically((fs::path(path_) / "summary.json").string(), summary.dump(2) + "\n");
}

bool RunDirectory::has_summary() const { return fs::exists(fs::path(path_) / "summary.json"); }

nlohmann::json RunDirectory::read_summary() const {
  return nlohmann::json::parse(read_text((fs::path(path_) / "summary.json").string()), nullptr, false);
}

}  // namespace placebench::harness
