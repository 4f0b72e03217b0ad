// Helpers for the mpirun integration tests: run placebench under `mpirun --oversubscribe -np N` as
// root (the Open MPI variables are also set by CTest's ENVIRONMENT), with a deadline and wall time.
#pragma once
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "run_command.h"

namespace placebench::testing {

struct MpiRun {
  CommandResult result;
  double wall_s = 0;
};

// mpirun binds nothing (--bind-to none): placebench applies the arm itself, and Open MPI's own binding
// would shrink the CPUs the plan may use.
inline MpiRun run_mpi(int ranks, const std::vector<std::string>& args, double timeout_s = 60,
                      std::vector<std::string> env = {}) {
  std::vector<std::string> argv{PLACEBENCH_MPIEXEC, "--oversubscribe", "--bind-to", "none", "-np", std::to_string(ranks),
                                placebench_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  env.push_back("OMPI_ALLOW_RUN_AS_ROOT=1");
  env.push_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  auto t0 = std::chrono::steady_clock::now();
  MpiRun run{run_command(argv, timeout_s, env), 0};
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

// A job on its own thread, so that the test can signal its processes while it runs.
class BackgroundMpiRun {
 public:
  BackgroundMpiRun(int ranks, std::vector<std::string> args, double timeout_s, std::vector<std::string> env = {})
      : BackgroundMpiRun([ranks, args = std::move(args), timeout_s, env = std::move(env)] {
          return run_mpi(ranks, args, timeout_s, env);
        }) {}
  // Any launch (an MPMD mpirun line, say) that returns its MpiRun when the job ended.
  explicit BackgroundMpiRun(std::function<MpiRun()> launch)
      : thread_([this, launch = std::move(launch)] {
          run_ = launch();
          ended_ = std::chrono::steady_clock::now();
          done_ = true;
        }) {}
  ~BackgroundMpiRun() {
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_; }
  // Joins the job (it ends by its own deadline at the latest).
  const MpiRun& wait() {
    if (thread_.joinable()) thread_.join();
    return run_;
  }
  // Seconds from `t` to the job's end (after wait()).
  double seconds_after(std::chrono::steady_clock::time_point t) const {
    return std::chrono::duration<double>(ended_ - t).count();
  }

 private:
  MpiRun run_;
  std::chrono::steady_clock::time_point ended_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The pid a rank wrote to `path` (PLACEBENCH_TEST_PID_FILE), once it exists; 0 when it did not appear
// within timeout_s or the job ended first.
inline pid_t wait_for_pid_file(const std::string& path, double timeout_s, const BackgroundMpiRun& job) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline && !job.done()) {
    std::ifstream in(path);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

// This test's child processes named `name` (e.g. the mpirun a BackgroundMpiRun started).
inline std::vector<pid_t> child_pids_named(const std::string& name) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (dirent* e = readdir(proc)) {
    pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == getpid() && stat.substr(open + 1, close - open - 1) == name) out.push_back(pid);
  }
  closedir(proc);
  return out;
}

// Leaves no frozen process behind: a rank still there is continued and killed.
inline void release_and_kill(pid_t pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return;
  kill(pid, SIGCONT);
  kill(pid, SIGKILL);
}

// The JSON object on stdout (the first '{' to the end), or null.
inline nlohmann::json stdout_json(const CommandResult& r) {
  auto brace = r.out.find('{');
  if (brace == std::string::npos) return nullptr;
  return nlohmann::json::parse(r.out.substr(brace), nullptr, false);
}

inline int count_lines(const std::string& s, const std::string& needle) {
  int n = 0;
  for (std::size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace placebench::testing
