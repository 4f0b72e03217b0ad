// A CPU share cap on this process through cgroup v2's cpu.max (the mechanism; which ranks are capped,
// and by how much, is the caller's policy). The process moves itself into a child cgroup of its own,
// `<its cgroup>/placebench-cap-<pid>`, whose cpu.max is "<share x period> <period>", and back when the
// cap is lifted; the child is then removed (and children that killed runs left are removed by the next).
//
// Where it works: cgroup v2 (a `0::/path` line in /proc/self/cgroup, cgroup.controllers at the mount,
// and the process listed in that path's cgroup.procs), the cpu controller available in the process's
// cgroup (its cgroup.controllers) and enabled for its children (cgroup.subtree_control, which the cap
// enables when it is not). The kernel lets a cgroup that holds processes enable controllers for its
// children only when it is the root cgroup, so in practice: a job started as root from the root cgroup
// (bare metal, a VM's init; not a login session's scope, a systemd service or a container, whose
// cgroups hold their processes). Anything else is a CpuCapError that says which of these is missing
// and what to do; nothing is changed then (a child made before the failure is removed).
// "+cpu" stays enabled in the parent's subtree_control after the cap is lifted (other ranks may hold
// caps beside this one); it limits nothing by itself.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace placebench::hostpipe {

struct CpuCapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// cpu.stat of the child cgroup: how often the cap held the process back.
struct CpuCapStats {
  std::uint64_t periods = 0;         // nr_periods
  std::uint64_t throttled = 0;       // nr_throttled: periods in which the quota ran out
  std::uint64_t throttled_us = 0;    // throttled_usec
  std::uint64_t usage_us = 0;        // usage_usec: CPU time used inside the child
};

class CpuCap {
 public:
  static constexpr double kMinShare = 0.01, kMaxShare = 1.0;
  static constexpr std::uint64_t kMinPeriodUs = 1000, kMaxPeriodUs = 1000000;  // the kernel's bounds
  static constexpr std::uint64_t kMinQuotaUs = 1000;                            // the kernel's floor

  // Caps the calling process at `share` of one CPU (0.01-1) in periods of about period_us (the quota is
  // share x period; the period is raised until the quota is at least 1 ms). The cap is an average over
  // a period: work much shorter than the period can run uncapped while the period's quota lasts, so the
  // caller picks a period well under the work it slows. proc_root and sys_root are "/proc" and
  // "/sys/fs/cgroup" except in tests. Throws CpuCapError (nothing changed) when it cannot.
  static std::unique_ptr<CpuCap> apply(double share, std::uint64_t period_us, const std::string& proc_root = "/proc",
                                       const std::string& sys_root = "/sys/fs/cgroup");
  ~CpuCap();  // lifts the cap: back to the cgroup it came from, the child removed (errors ignored)
  CpuCap(const CpuCap&) = delete;
  CpuCap& operator=(const CpuCap&) = delete;

  const std::string& cgroup_dir() const { return child_; }  // the child cgroup's directory
  const std::string& cpu_max() const { return cpu_max_; }   // what was written to cpu.max
  CpuCapStats stats() const;                                // zeros when cpu.stat cannot be read

 private:
  CpuCap(std::string parent, std::string child, std::string cpu_max)
      : parent_(std::move(parent)), child_(std::move(child)), cpu_max_(std::move(cpu_max)) {}
  std::string parent_, child_, cpu_max_;
};

// The period the cap uses for a share and a wished period: clamped to the kernel's bounds and raised
// until the quota (share x period) is at least 1000 us.
std::uint64_t cpu_cap_period_us(double share, std::uint64_t period_us);

// The cpu.max text for a share and a period: "<quota> <period>", the share clamped to 0.01-1, the period
// to the kernel's bounds and raised until the quota is at least 1000 us.
std::string cpu_max_text(double share, std::uint64_t period_us);

}  // namespace placebench::hostpipe
