// Helpers for the mpirun integration tests: run placebench under `mpirun --oversubscribe -np N` as
// root (the Open MPI variables are also set by CTest's ENVIRONMENT), with a deadline and wall time.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
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
