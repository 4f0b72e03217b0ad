// What the run context records about the node beside topology: the kubelet's resource-manager
// policies, this process's cgroup CPU and memory limits, the CPU frequency governors, and warnings
// (in the spirit of nanobench) when the machine is not fit to measure. Plain data; JSON in sysmetrics_json.h.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace placebench::hostpipe::sysmetrics {

struct KubeletPolicies {
  std::string path;
  std::string status = "absent";  // "read", "absent" (no such file), "unreadable", "malformed"
  std::string detail;             // why it was not read (the parser's message for "malformed")
  // As read; a key the file leaves out gets the kubelet's documented default and is listed in
  // `defaulted`. Empty when the file was not read.
  std::string cpu_manager_policy;       // "none" (default) | "static"
  std::string topology_manager_policy;  // "none" (default) | "best-effort" | "restricted" | "single-numa-node"
  std::string topology_manager_scope;   // "container" (default) | "pod"
  std::string memory_manager_policy;    // "None" (default) | "Static"
  std::vector<std::string> defaulted;   // YAML keys that were absent, e.g. "memoryManagerPolicy"
};

struct CgroupLimits {
  int version = 0;                        // 2, 1 (v1 or hybrid), 0 when /proc/self/cgroup is unreadable
  std::string cpu_path;                   // the cgroup directory holding the tightest CPU limit
  std::string cpu_max;                    // its raw value: "200000 100000" (v2), "150000 100000" (v1)
  std::optional<double> cpu_limit_cpus;   // quota / period; nullopt: no limit found
  std::string memory_path;
  std::optional<std::uint64_t> memory_max_bytes;  // nullopt: no limit found
  std::string cpuset_cpus_effective;      // cpulist, "" when unknown
  std::string cpuset_mems_effective;      // memory nodes (cpuset.mems.effective / cpuset.effective_mems)
  std::string cpuset_path;                // the cgroup directory the cpuset was read from
  std::string detail;                     // what could not be read
};

struct CpuFrequency {
  std::map<std::string, std::vector<int>> governors;  // governor -> CPUs; empty without cpufreq (VMs)
  std::string driver;                                 // scaling_driver of the first CPU with cpufreq
  std::optional<bool> turbo_enabled;                  // intel_pstate/no_turbo or cpufreq/boost; nullopt: unknown
};

struct RunContextExtras {
  KubeletPolicies kubelet;
  CgroupLimits cgroup;
  CpuFrequency cpu_frequency;
  std::optional<std::uint64_t> swap_used_bytes;  // SwapTotal - SwapFree (/proc/meminfo)
  bool debug_build = false;                      // placebench built without NDEBUG
  std::vector<std::string> warnings;             // each says what is wrong and what to do
};

// Never throws: what cannot be read is recorded (status, detail, nullopt) and, where it matters for
// measurement, warned about.
RunContextExtras collect_run_context_extras(const std::string& proc_root = "/proc",
                                            const std::string& sys_root = "/sys",
                                            const std::string& kubelet_config_path = "/var/lib/kubelet/config.yaml");

// The parts, for tests and for callers that want one.
KubeletPolicies read_kubelet_policies(const std::string& path);
CgroupLimits read_cgroup_limits(const std::string& proc_root, const std::string& sys_root);
CpuFrequency read_cpu_frequency(const std::string& sys_root);
std::optional<std::uint64_t> read_swap_used_bytes(const std::string& proc_root);

}  // namespace placebench::hostpipe::sysmetrics
