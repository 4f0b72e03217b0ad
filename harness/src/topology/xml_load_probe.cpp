// The forked load of a topology file (see xml_load_probe.h).
#include "placebench/harness/topology/xml_load_probe.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

constexpr int kChildLoaded = 0;
constexpr int kChildLoadFailed = 3;

[[noreturn]] void child_load(const std::function<bool()>& load) {
  // Quiet: this process loads the file again and says what hwloc says there.
  int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) dup2(devnull, STDERR_FILENO);
  bool loaded = false;
  try {
    loaded = load();
  } catch (...) {
  }
  _exit(loaded ? kChildLoaded : kChildLoadFailed);
}

std::string signal_text(int sig) {
  const char* d = strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(", ") + d : std::string());
}

std::string duration_text(std::chrono::milliseconds d) {
  return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + " s" : std::to_string(d.count()) + " ms";
}

}  // namespace

ProbeResult run_in_child_first(const std::function<bool()>& load, const std::string& name,
                               std::chrono::milliseconds deadline) {
  pid_t pid = fork();
  if (pid < 0) return ProbeResult::kNotRun;
  if (pid == 0) child_load(load);
  auto until = std::chrono::steady_clock::now() + deadline;
  auto nap = std::chrono::microseconds(200);
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return ProbeResult::kNotRun;  // reaped elsewhere (SIGCHLD ignored): no answer
    if (std::chrono::steady_clock::now() >= until) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw InputError(name + ": hwloc's XML loader did not finish within " + duration_text(deadline) + " on this file; the file is malformed or far larger than a real topology: export it again "
                       "with `placebench topo --export FILE.xml`");
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(20000));
  }
  if (WIFSIGNALED(status))
    throw InputError(name + ": hwloc's XML loader crashed on " + name + " (" + signal_text(WTERMSIG(status)) +
                     "); the file is malformed: export it again with `placebench topo --export FILE.xml` or "
                     "hwloc 2's `lstopo FILE.xml`");
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildLoaded) return ProbeResult::kLoaded;
  return ProbeResult::kLoadFailed;
}

}  // namespace placebench::harness
