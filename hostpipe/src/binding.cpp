// Thread binding with sched_setaffinity (see binding.h).
#include "placebench/hostpipe/binding.h"

#include <numaif.h>
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

std::string bind_current_thread_memory(const std::vector<int>& nodes) {
  if (nodes.empty()) return "no memory nodes given";
  constexpr int kMaskBits = 1024;
  unsigned long mask[kMaskBits / (8 * sizeof(unsigned long))] = {0};
  for (int n : nodes) {
    if (n < 0 || n >= kMaskBits) return "node " + std::to_string(n) + " is out of range";
    mask[n / (8 * sizeof(unsigned long))] |= 1ul << (n % (8 * sizeof(unsigned long)));
  }
  if (set_mempolicy(MPOL_BIND, mask, kMaskBits + 1) != 0)
    return std::string("set_mempolicy: ") + std::strerror(errno);
  return "";
}

}  // namespace placebench::hostpipe
