// Binding the calling thread to CPUs and its allocations to memory nodes, and undoing it. Mechanism
// only: which CPUs and nodes is the harness's decision.
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

// set_mempolicy(MPOL_DEFAULT) for the calling thread: undoes bind_current_thread_memory (allocations
// come from the local node first again). Returns "" once the policy is the default (also when the
// kernel has no memory policies, or when it cannot be set but already is the default), else what
// failed and, where the kernel's reason says it, what to do.
std::string reset_current_thread_memory();

}  // namespace placebench::hostpipe
