// The CPUs and memory nodes this process may use, as the kernel reports them (cgroup cpuset and
// affinity included). These can be smaller than the machine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace placebench::hostpipe {

struct AllowedSets {
  std::vector<int> cpus;  // Cpus_allowed_list of /proc/self/status
  std::vector<int> mems;  // Mems_allowed_list of /proc/self/status
};

// Reads /proc/self/status (or the given file, for tests). Throws std::runtime_error when unreadable.
AllowedSets read_allowed_sets(const std::string& status_path = "/proc/self/status");

// The calling thread's effective affinity (sched_getaffinity).
std::vector<int> current_thread_affinity();

// MemAvailable of /proc/meminfo (or the given file), in bytes; 0 when it cannot be read.
std::uint64_t mem_available_bytes(const std::string& meminfo_path = "/proc/meminfo");

}  // namespace placebench::hostpipe
