// What a process was given, as the kernel reports it in /proc: its allowed CPUs and memory nodes, the
// affinity of every one of its threads, and (for any process, not only this one) where its pages are and
// under which memory policies (numa_maps). Mechanism only: whether that is local to a GPU is the
// harness's decision. Every reader takes a proc root so tests can point it at a fake tree.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace placebench::hostpipe {

struct ThreadAffinity {
  int tid = 0;
  std::string name;       // /proc/PID/task/TID/comm, without the newline
  std::vector<int> cpus;  // Cpus_allowed_list of the thread (sched_getaffinity's answer)
};

struct ProcessPlacement {
  int pid = 0;                         // as given (0: this process, read through <proc>/self)
  std::vector<int> allowed_cpus;       // Cpus_allowed_list of /proc/PID/status
  std::vector<int> allowed_mems;       // Mems_allowed_list
  std::string state;                   // the State: letter ("R", "S", "Z" for a zombie, "X" dead), "" unread
  bool kernel_thread = false;          // "Kthread: 1", or no memory map (no VmSize:) while not a zombie
  std::vector<ThreadAffinity> threads; // sorted by tid; a thread that exits while being read is left out
  std::vector<std::string> errors;     // what could not be read, in words ("" when everything was)
};

// Never throws: what cannot be read goes into errors (a process that does not exist, or is not ours to
// read, gives an error and no threads).
ProcessPlacement read_process_placement(int pid, const std::string& proc_root = "/proc");

// The threads of pid (0: this process) and their affinities only.
std::vector<ThreadAffinity> read_thread_affinities(int pid, const std::string& proc_root = "/proc");

// /proc/PID/numa_maps summarised: how many mappings use each policy ("default", "bind:1",
// "interleave:0-1", "prefer:0") and how many pages are on each node (the N<node>=<pages> fields of the
// mappings that hold anonymous pages: shared file pages are where their first reader put them).
struct NumaMaps {
  std::map<std::string, std::size_t> policies;  // policy field -> mappings
  std::map<int, std::size_t> pages;             // node -> pages
  std::string error;                            // why it could not be read, or that it is empty (no memory map)
};

// Parses numa_maps text; lines it cannot read are skipped (the kernel's format is stable).
NumaMaps parse_numa_maps(std::string_view text);
NumaMaps read_numa_maps(int pid, const std::string& proc_root = "/proc");

// The text with every byte that is not part of well-formed UTF-8 replaced by '?' (thread names and
// environment values can hold any bytes; JSON cannot).
std::string valid_utf8(std::string text);

// A /proc file (or one of a --proc-root tree) read by the project's input-file rules: a regular file
// only (a FIFO standing in for one is refused at once, never waited on), at most max_bytes. nullopt, with
// the reason in *problem ("PATH: not a regular file (a FIFO)"), otherwise.
inline constexpr std::uint64_t kMaxProcTextBytes = 1u << 20;     // status, comm, cgroup, information
inline constexpr std::uint64_t kMaxEnvironBytes = 16u << 20;     // environ (ARG_MAX is a quarter of the stack limit)
inline constexpr std::uint64_t kMaxNumaMapsBytes = 256u << 20;   // numa_maps (a line per mapping)
std::optional<std::string> read_proc_text(const std::string& path, std::uint64_t max_bytes, std::string* problem = nullptr);

// "<proc_root>/self" for pid 0, else "<proc_root>/<pid>".
std::string proc_dir(int pid, const std::string& proc_root);

}  // namespace placebench::hostpipe
