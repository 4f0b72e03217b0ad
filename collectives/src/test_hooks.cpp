// Test hooks (see test_hooks.h).
#include "test_hooks.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace placebench::collectives::detail {

void write_test_pid_file(int rank) {
  const char* path = std::getenv("PLACEBENCH_TEST_PID_FILE");
  const char* who = std::getenv("PLACEBENCH_TEST_PID_RANK");
  if (!path || !who || std::atoi(who) != rank) return;
  std::string tmp = std::string(path) + ".tmp";
  { std::ofstream(tmp) << getpid() << "\n"; }
  std::rename(tmp.c_str(), path);
  if (const char* stop = std::getenv("PLACEBENCH_TEST_STOP_SELF"); stop && std::string(stop) == "1") raise(SIGSTOP);
}

}  // namespace placebench::collectives::detail
