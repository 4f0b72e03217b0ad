// Loads a prepared hwloc topology in a forked child before the process loads it itself: hwloc's XML
// loader has crashes that no check of the file can rule out, and a crash in a child is an answer
// (exit 2, one line) instead of a SEGV of placebench.
#pragma once
#include <chrono>
#include <functional>
#include <string>

namespace placebench::harness {

inline constexpr std::chrono::seconds kXmlLoadDeadline{20};

enum class ProbeResult { kLoaded, kLoadFailed, kNotRun };

// Runs `load` in a forked child and waits for it, at most `deadline` (then kills it). For files:
// `load` loads the child's copy of a prepared topology (hwloc_topology_init, the same flags,
// hwloc_topology_set_xmlbuffer), so this process's topology is untouched. Throws InputError naming
// `name` when the child is killed by a signal or runs past the deadline. kLoadFailed: `load` returned
// false (hwloc refused the file); kNotRun: fork failed, the caller loads without the probe (the check
// of the file has run). One fork per call; for files only, never for the live topology.
ProbeResult run_in_child_first(const std::function<bool()>& load, const std::string& name,
                               std::chrono::milliseconds deadline);

}  // namespace placebench::harness
