// Thread binding with sched_setaffinity (see binding.h).
#include "placebench/hostpipe/binding.h"

#include <sched.h>

#include <cerrno>
#include <cstring>

namespace placebench::hostpipe {

std::string bind_current_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return "no CPUs given";
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) return "CPU " + std::to_string(c) + " is out of range";
    CPU_SET(c, &set);
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    return std::string("sched_setaffinity: ") + std::strerror(errno) +
           (errno == EINVAL ? " (the CPUs are outside this process's allowed cpuset)" : "");
  return "";
}

}  // namespace placebench::hostpipe
