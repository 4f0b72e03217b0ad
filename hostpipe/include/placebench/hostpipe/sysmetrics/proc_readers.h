// Readers of the kernel's text files that the sampler reads at every tick: an open file re-read from
// offset 0 (as top and vmstat do, so a tick costs no open/close), and parsers of /proc/stat,
// /proc/pressure/*, /proc/self/statm and /proc/self/stat. Parsers take text so tests need no files.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace placebench::hostpipe::sysmetrics {

// A file kept open and re-read whole from offset 0. /proc and sysfs regenerate their content on a
// read at offset 0, and a regular file (a test fixture rewritten in place) shows its current content.
class ProcFile {
 public:
  ProcFile() = default;
  explicit ProcFile(std::string path);  // never throws: check is_open() / error()
  ~ProcFile();
  ProcFile(ProcFile&& other) noexcept;
  ProcFile& operator=(ProcFile&& other) noexcept;
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;

  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }  // "path: strerror" of the last failure
  // Reads the whole file into out (reusing its capacity). False on error (see error()).
  bool read(std::string& out);

 private:
  std::string path_;
  std::string error_;
  int fd_ = -1;
};

// Reads a whole file once (open, read, close); nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);

// Jiffies of one /proc/stat "cpu" line. busy = total - idle - iowait; total excludes guest and
// guest_nice, which the kernel already counts in user and nice.
struct CpuTimes {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};

struct ProcStat {
  CpuTimes all;                     // the aggregate "cpu" line
  std::vector<CpuTimes> per_cpu;    // indexed by CPU id
  std::vector<bool> present;        // per_cpu[i] came from a "cpuI" line (offline CPUs have none)
};

// Parses the cpu lines of /proc/stat. Throws std::runtime_error when there is no aggregate line.
ProcStat parse_proc_stat(std::string_view text);

// The "some" line of a /proc/pressure file: "some avg10=1.50 avg60=... total=123".
struct Pressure {
  double some_avg10_pct = 0;
  std::uint64_t some_total_us = 0;
};
std::optional<Pressure> parse_pressure(std::string_view text);

// Resident pages: the second field of /proc/self/statm.
std::optional<std::uint64_t> parse_statm_resident_pages(std::string_view text);

// majflt: field 12 of /proc/self/stat, counted after the last ')' since the command name may hold
// spaces and parentheses.
std::optional<std::uint64_t> parse_stat_major_faults(std::string_view text);

// First unsigned integer of a text ("1234\n" in sysfs counters).
std::optional<std::uint64_t> parse_u64(std::string_view text);

}  // namespace placebench::hostpipe::sysmetrics
