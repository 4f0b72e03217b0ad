// Reads the allowed CPU and memory-node sets of this process (see process_limits.h).
#include "placebench/hostpipe/process_limits.h"

#include <sched.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/input_file.h"

namespace placebench::hostpipe {

AllowedSets read_allowed_sets(const std::string& status_path) {
  // By the input-file rules: a FIFO standing in for status (a --proc-root tree) is refused, not waited on.
  FileText file = read_regular_file(status_path, 1u << 20);
  if (!file.ok) throw std::runtime_error(status_path + ": cannot read the allowed CPU and memory sets: " + file.problem);
  std::istringstream in(file.text);
  AllowedSets sets;
  bool have_cpus = false, have_mems = false;
  for (std::string line; std::getline(in, line);) {
    auto value = [&](const char* key) { return line.substr(std::string(key).size()); };
    if (line.rfind("Cpus_allowed_list:", 0) == 0) {
      sets.cpus = parse_cpulist(value("Cpus_allowed_list:"));
      have_cpus = true;
    } else if (line.rfind("Mems_allowed_list:", 0) == 0) {
      sets.mems = parse_cpulist(value("Mems_allowed_list:"));
      have_mems = true;
    }
  }
  if (!have_cpus || !have_mems)
    throw std::runtime_error(status_path + ": no Cpus_allowed_list/Mems_allowed_list lines");
  return sets;
}

std::vector<int> current_thread_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("sched_getaffinity failed");
  std::vector<int> cpus;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) cpus.push_back(i);
  return cpus;
}

std::uint64_t mem_available_bytes(const std::string& meminfo_path) {
  std::ifstream in(meminfo_path);
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace placebench::hostpipe
