// A CPU share cap through cgroup v2's cpu.max (see cpu_cap.h).
#include "placebench/hostpipe/cpu_cap.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <sstream>

#include "placebench/hostpipe/input_file.h"

namespace placebench::hostpipe {
namespace {

constexpr std::uint64_t kMaxCgroupFileBytes = 64 * 1024;

std::string read_text(const std::string& path) {
  FileText f = read_regular_file(path, kMaxCgroupFileBytes);
  return f.ok ? f.text : std::string();
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

// Writes text to an existing cgroup file; "" on success, else strerror.
std::string write_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);  // as a shell's > does
  if (fd < 0) return std::strerror(errno);
  ssize_t n = ::write(fd, text.data(), text.size());
  std::string err = n == static_cast<ssize_t>(text.size()) ? "" : std::strerror(n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

// This process's cgroup v2 directory under sys_root; throws with what is missing.
std::string own_cgroup_dir(const std::string& proc_root, const std::string& sys_root) {
  std::string self = read_text(proc_root + "/self/cgroup");
  std::string path;
  std::istringstream in(self);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  struct stat st{};
  if (path.empty() || ::stat((sys_root + "/cgroup.controllers").c_str(), &st) != 0)
    throw CpuCapError("a CPU share cap needs cgroup v2 (cpu.max), and this process is not in a cgroup v2 hierarchy at " +
                      sys_root + " (" + proc_root + "/self/cgroup has no 0:: line, or no cgroup.controllers there): boot "
                      "with systemd.unified_cgroup_hierarchy=1, or slow the ranks with --slow-step instead");
  // The directory must hold this process: a path not under this mount (a container without a cgroup
  // namespace, a host hierarchy mounted in a namespaced one) is refused rather than guessed, since moving
  // the process elsewhere would take it out of its own cgroup's limits.
  std::string dir = path == "/" ? sys_root : sys_root + path;
  if (!has_word(read_text(dir + "/cgroup.procs"), std::to_string(::getpid())))
    throw CpuCapError("cannot find this process's own cgroup: " + dir + "/cgroup.procs does not list it (" + proc_root +
                      "/self/cgroup says " + path + "; a cgroup namespace or another mount hides it): run placebench "
                      "where its cgroup is mounted at " + sys_root + ", or slow the ranks with --slow-step instead");
  return dir;
}

// Children an earlier run left when it was killed before it could remove them (MPI_Abort skips
// destructors): empty ones whose process is gone. A child of a live process is left alone (another
// capped rank on this node may have made it and not yet moved in).
void remove_stale_children(const std::string& parent) {
  constexpr std::string_view kPrefix = "placebench-cap-";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    std::string digits = name.substr(kPrefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || (::kill(pid, 0) != 0 && errno == ESRCH)) ::rmdir(entry.path().c_str());
  }
}

}  // namespace

std::uint64_t cpu_cap_period_us(double share, std::uint64_t period_us) {
  double s = std::clamp(share, CpuCap::kMinShare, CpuCap::kMaxShare);
  auto least = static_cast<std::uint64_t>(std::ceil(static_cast<double>(CpuCap::kMinQuotaUs) / s));
  return std::clamp(std::max(period_us, least), CpuCap::kMinPeriodUs, CpuCap::kMaxPeriodUs);
}

std::string cpu_max_text(double share, std::uint64_t period_us) {
  double s = std::clamp(share, CpuCap::kMinShare, CpuCap::kMaxShare);
  std::uint64_t period = cpu_cap_period_us(share, period_us);
  auto quota = static_cast<std::uint64_t>(std::llround(s * static_cast<double>(period)));
  return std::to_string(std::max(quota, CpuCap::kMinQuotaUs)) + " " + std::to_string(period);
}

std::unique_ptr<CpuCap> CpuCap::apply(double share, std::uint64_t period_us, const std::string& proc_root,
                                      const std::string& sys_root) {
  if (!(share >= kMinShare && share <= kMaxShare))
    throw CpuCapError("a CPU share cap must be between 1% and 100% of a CPU");
  std::string parent = own_cgroup_dir(proc_root, sys_root);
  if (!has_word(read_text(parent + "/cgroup.controllers"), "cpu"))
    throw CpuCapError("the cpu controller is not available in this process's cgroup " + parent +
                      " (its cgroup.controllers has no cpu): enable it in the parent's cgroup.subtree_control, or "
                      "slow the ranks with --slow-step instead");
  if (!has_word(read_text(parent + "/cgroup.subtree_control"), "cpu")) {
    std::string err = write_file(parent + "/cgroup.subtree_control", "+cpu");
    if (!err.empty())
      throw CpuCapError("cannot enable the cpu controller for the children of " + parent + " (writing +cpu to its "
                        "cgroup.subtree_control: " + err + "; the kernel allows it only in the root cgroup, or in one that "
                        "holds no process, and this one holds placebench): start the job as root from the root cgroup, "
                        "or slow the ranks with --slow-step instead");
  }
  remove_stale_children(parent);
  std::string child = parent + "/placebench-cap-" + std::to_string(::getpid());
  if (::mkdir(child.c_str(), 0755) != 0 && errno != EEXIST)
    throw CpuCapError("cannot create the cgroup " + child + ": " + std::strerror(errno) +
                      " (run as root, or in a cgroup delegated to this user)");
  std::string text = cpu_max_text(share, period_us);
  std::string err = write_file(child + "/cpu.max", text);
  if (err.empty()) err = write_file(child + "/cgroup.procs", std::to_string(::getpid()));
  if (!err.empty()) {
    ::rmdir(child.c_str());
    throw CpuCapError("cannot cap this process in " + child + " (cpu.max " + text + ", then cgroup.procs): " + err);
  }
  return std::unique_ptr<CpuCap>(new CpuCap(parent, child, text));
}

CpuCap::~CpuCap() {
  write_file(parent_ + "/cgroup.procs", std::to_string(::getpid()));
  ::rmdir(child_.c_str());
}

CpuCapStats CpuCap::stats() const {
  CpuCapStats s;
  std::istringstream in(read_text(child_ + "/cpu.stat"));
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "nr_periods") s.periods = value;
    if (key == "nr_throttled") s.throttled = value;
    if (key == "throttled_usec") s.throttled_us = value;
    if (key == "usage_usec") s.usage_us = value;
  }
  return s;
}

}  // namespace placebench::hostpipe
