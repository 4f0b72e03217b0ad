// Binding the calling thread to CPUs. Mechanism only: which CPUs is the harness's decision.
#pragma once
#include <string>
#include <vector>

namespace placebench::hostpipe {

// sched_setaffinity on the calling thread. Returns "" on success, else the kernel's reason (e.g. CPUs
// outside this process's cgroup cpuset); it never throws, so the caller can record the failure.
std::string bind_current_thread(const std::vector<int>& cpus);

// set_mempolicy(MPOL_BIND) for the calling thread: its future allocations come from `nodes` only.
// Returns "" on success, else the kernel's reason.
std::string bind_current_thread_memory(const std::vector<int>& nodes);

}  // namespace placebench::hostpipe
