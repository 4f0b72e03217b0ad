// Thread binding with sched_setaffinity and set_mempolicy (see binding.h).
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
    const auto bit = static_cast<std::size_t>(n);  // in [0, kMaskBits): checked above
    mask[bit / (8 * sizeof(unsigned long))] |= 1ul << (bit % (8 * sizeof(unsigned long)));
  }
  if (set_mempolicy(MPOL_BIND, mask, kMaskBits + 1) != 0)
    return std::string("set_mempolicy: ") + std::strerror(errno);
  return "";
}

std::string reset_current_thread_memory() {
  if (set_mempolicy(MPOL_DEFAULT, nullptr, 0) == 0) return "";
  int err = errno;
  if (err == ENOSYS) return "";  // a kernel without NUMA policies: every allocation follows the default
  int mode = -1;
  if (get_mempolicy(&mode, nullptr, 0, nullptr, 0) == 0 && mode == MPOL_DEFAULT) return "";  // nothing to undo
  return std::string("set_mempolicy(MPOL_DEFAULT): ") + std::strerror(err) +
         (err == EPERM ? " (memory policies are not permitted here: a container needs CAP_SYS_NICE or a seccomp "
                         "profile that allows set_mempolicy)"
                       : "");
}

}  // namespace placebench::hostpipe
