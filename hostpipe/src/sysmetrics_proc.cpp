// Kernel text files read at every sampler tick (see sysmetrics/proc_readers.h).
#include "placebench/hostpipe/sysmetrics/proc_readers.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace placebench::hostpipe::sysmetrics {

ProcFile::ProcFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) error_ = path_ + ": " + std::strerror(errno);
}

ProcFile::~ProcFile() {
  if (fd_ >= 0) ::close(fd_);
}

ProcFile::ProcFile(ProcFile&& other) noexcept
    : path_(std::move(other.path_)), error_(std::move(other.error_)), fd_(other.fd_) {
  other.fd_ = -1;
}

ProcFile& ProcFile::operator=(ProcFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    error_ = std::move(other.error_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

bool ProcFile::read(std::string& out) {
  if (fd_ < 0) {
    out.clear();
    return false;
  }
  // Read into the buffer's whole capacity (kept between ticks); double it only when a read fills it,
  // as /proc/stat on a large machine is tens of KiB. The read that returns 0 marks the end.
  out.resize(std::max<std::size_t>(out.capacity(), 4096));
  std::size_t used = 0;
  for (;;) {
    if (used == out.size()) out.resize(out.size() * 2);
    ssize_t n = ::pread(fd_, out.data() + used, out.size() - used, static_cast<off_t>(used));
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = path_ + ": " + std::strerror(errno);
      out.clear();
      return false;
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  out.resize(used);
  return true;
}

std::optional<std::string> read_text_file(const std::string& path) {
  ProcFile file(path);
  std::string text;
  if (!file.read(text)) return std::nullopt;
  return text;
}

namespace {

// Parses an unsigned integer at the start of text (after spaces), advancing text past it.
bool next_u64(std::string_view& text, std::uint64_t& value) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
  if (ec != std::errc()) return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

CpuTimes parse_cpu_fields(std::string_view fields) {
  // user nice system idle iowait irq softirq steal guest guest_nice (later kernels may add more).
  std::uint64_t v[10] = {};
  for (int i = 0; i < 10 && next_u64(fields, v[i]); ++i) {
  }
  CpuTimes t;
  t.total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  t.busy = t.total - v[3] - v[4];
  return t;
}

}  // namespace

ProcStat parse_proc_stat(std::string_view text) {
  ProcStat stat;
  bool have_all = false;
  while (!text.empty()) {
    std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (line.substr(0, 3) != "cpu") {
      if (have_all) break;  // the cpu lines come first; skip the long intr line and the rest
      continue;
    }
    line.remove_prefix(3);
    if (!line.empty() && line[0] == ' ') {
      stat.all = parse_cpu_fields(line);
      have_all = true;
      continue;
    }
    std::uint64_t id = 0;
    if (!next_u64(line, id) || id > 65535) continue;
    if (stat.per_cpu.size() <= id) {
      stat.per_cpu.resize(id + 1);
      stat.present.resize(id + 1, false);
    }
    stat.per_cpu[id] = parse_cpu_fields(line);
    stat.present[id] = true;
  }
  if (!have_all) throw std::runtime_error("no aggregate \"cpu\" line in /proc/stat text");
  return stat;
}

std::optional<Pressure> parse_pressure(std::string_view text) {
  std::size_t at = text.find("some ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(at, text.find('\n', at) - at);
  std::size_t avg = line.find("avg10=");
  std::size_t total = line.find("total=");
  if (avg == std::string_view::npos || total == std::string_view::npos) return std::nullopt;
  Pressure p;
  // from_chars for double is in libstdc++ 11+; strtod needs a terminated copy.
  std::string avg_text(line.substr(avg + 6, line.find(' ', avg) - (avg + 6)));
  char* end = nullptr;
  p.some_avg10_pct = std::strtod(avg_text.c_str(), &end);
  if (end == avg_text.c_str()) return std::nullopt;
  std::string_view rest = line.substr(total + 6);
  if (!next_u64(rest, p.some_total_us)) return std::nullopt;
  return p;
}

std::optional<std::uint64_t> parse_statm_resident_pages(std::string_view text) {
  std::uint64_t size = 0, resident = 0;
  if (!next_u64(text, size) || !next_u64(text, resident)) return std::nullopt;
  return resident;
}

std::optional<std::uint64_t> parse_stat_major_faults(std::string_view text) {
  std::size_t paren = text.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  text.remove_prefix(paren + 1);
  // After ')': state (field 3), then fields 4..; majflt is field 12, the 10th token.
  for (int field = 3; field < 12; ++field) {
    std::size_t i = text.find_first_not_of(' ');
    if (i == std::string_view::npos) return std::nullopt;
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) return std::nullopt;
    text.remove_prefix(end);
  }
  std::uint64_t majflt = 0;
  if (!next_u64(text, majflt)) return std::nullopt;
  return majflt;
}

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t v = 0;
  if (!next_u64(text, v)) return std::nullopt;
  return v;
}

}  // namespace placebench::hostpipe::sysmetrics
