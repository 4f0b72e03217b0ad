// Reading what a process was given from /proc (see process_placement.h). Thread affinities come from
// each task's status file rather than sched_getaffinity so that another process's threads (--pid) and a
// fake tree in tests are read the same way; the kernel writes the same mask to both.
#include "placebench/hostpipe/process_placement.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "placebench/hostpipe/input_file.h"
#include "placebench/hostpipe/process_limits.h"

namespace placebench::hostpipe {

namespace fs = std::filesystem;

std::string valid_utf8(std::string text) {
  while (std::optional<std::size_t> bad = invalid_utf8_at(text)) text[*bad] = '?';
  return text;
}

std::optional<std::string> read_proc_text(const std::string& path, std::uint64_t max_bytes, std::string* problem) {
  FileText file = read_regular_file(path, max_bytes);
  if (file.ok) return std::move(file.text);
  if (problem) *problem = path + ": " + file.problem;
  return std::nullopt;
}

std::string proc_dir(int pid, const std::string& proc_root) {
  return proc_root + "/" + (pid == 0 ? std::string("self") : std::to_string(pid));
}

std::vector<ThreadAffinity> read_thread_affinities(int pid, const std::string& proc_root) {
  std::vector<ThreadAffinity> threads;
  std::error_code ec;
  fs::directory_iterator it(proc_dir(pid, proc_root) + "/task", ec);
  if (ec) return threads;
  for (const fs::directory_entry& entry : it) {
    const std::string tid = entry.path().filename().string();
    if (tid.empty() || !std::all_of(tid.begin(), tid.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    ThreadAffinity t;
    try {
      t.tid = std::stoi(tid);
      t.cpus = read_allowed_sets(entry.path().string() + "/status").cpus;
    } catch (const std::exception&) {
      continue;  // the thread exited between the listing and the read
    }
    if (auto comm = read_proc_text(entry.path().string() + "/comm", kMaxProcTextBytes)) {
      t.name = valid_utf8(*comm);  // a thread names itself: any bytes
      while (!t.name.empty() && t.name.back() == '\n') t.name.pop_back();
    }
    threads.push_back(std::move(t));
  }
  std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) { return a.tid < b.tid; });
  return threads;
}

namespace {

// The value of a "Key:\tvalue" line of a status file, "" when absent.
std::string status_field(const std::string& status, const std::string& key) {
  std::istringstream in(status);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::size_t start = line.find_first_not_of(" \t", key.size() + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return "";
}

// A zombie (or dead task) has released its memory map, as a kernel thread never had one: status then
// has no Vm* lines. Newer kernels say "Kthread: 1" outright.
void read_state(const std::string& status_path, ProcessPlacement& p) {
  std::optional<std::string> status = read_proc_text(status_path, kMaxProcTextBytes);
  if (!status) return;
  std::string state = status_field(*status, "State");
  p.state = state.empty() ? "" : state.substr(0, 1);
  const bool gone = p.state == "Z" || p.state == "X";
  p.kernel_thread = status_field(*status, "Kthread") == "1" ||
                    (!gone && !p.state.empty() && status_field(*status, "VmSize").empty());
}

}  // namespace

ProcessPlacement read_process_placement(int pid, const std::string& proc_root) {
  ProcessPlacement p;
  p.pid = pid;
  const std::string dir = proc_dir(pid, proc_root);
  try {
    AllowedSets sets = read_allowed_sets(dir + "/status");
    p.allowed_cpus = std::move(sets.cpus);
    p.allowed_mems = std::move(sets.mems);
  } catch (const std::exception& e) {
    p.errors.push_back(e.what());
    return p;
  }
  read_state(dir + "/status", p);
  p.threads = read_thread_affinities(pid, proc_root);
  if (p.threads.empty()) p.errors.push_back(dir + "/task: no thread could be read");
  return p;
}

NumaMaps parse_numa_maps(std::string_view text) {
  NumaMaps maps;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string address, policy;
    if (!(fields >> address >> policy)) continue;
    maps.policies[policy]++;
    // Only anonymous mappings (heap, stacks, buffers) count: pages of a file mapping lie wherever their
    // first reader put them (page cache), and numa_maps' per-node counts of a file mapping with some
    // private copies (a library's data) mix the two, so such a mapping does not count either.
    std::vector<std::string> rest;
    for (std::string f; fields >> f;) rest.push_back(f);
    auto has = [&](const char* prefix) {
      return std::any_of(rest.begin(), rest.end(), [&](const std::string& f) { return f.rfind(prefix, 0) == 0; });
    };
    if (!has("anon=") || has("file=")) continue;
    for (const std::string& f : rest) {
      // N<node>=<pages>
      std::size_t eq = f.find('=');
      if (f.size() < 4 || f[0] != 'N' || eq == std::string::npos || eq < 2) continue;
      try {
        std::size_t used = 0;
        int node = std::stoi(f.substr(1, eq - 1), &used);
        if (used != eq - 1) continue;
        maps.pages[node] += static_cast<std::size_t>(std::stoull(f.substr(eq + 1)));
      } catch (const std::exception&) {
        continue;
      }
    }
  }
  return maps;
}

NumaMaps read_numa_maps(int pid, const std::string& proc_root) {
  const std::string path = proc_dir(pid, proc_root) + "/numa_maps";
  std::string problem;
  std::optional<std::string> text = read_proc_text(path, kMaxNumaMapsBytes, &problem);
  if (!text) {
    NumaMaps maps;
    maps.error = problem + " (no NUMA support in the kernel, or not a process this user may read)";
    return maps;
  }
  NumaMaps maps = parse_numa_maps(*text);
  if (maps.policies.empty()) maps.error = path + " is empty: the process has no memory map (a kernel thread, or a zombie)";
  return maps;
}

}  // namespace placebench::hostpipe
