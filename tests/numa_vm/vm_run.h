// Running a placebench command inside the 2-node QEMU guest of scripts/numa-vm.sh (node K has CPU K,
// 256 MiB each) and reading the JSON it prints.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.h"

namespace placebench::testing {

struct VmRun {
  CommandResult result;
  nlohmann::json record;  // the command's JSON output (discarded when it printed none or bad JSON)
};

// `command` runs as `placebench <command...>` in the guest; `vm_args` go to numa-vm.sh (e.g. a cpuset).
inline VmRun placebench_in_vm(const std::vector<std::string>& command, const std::vector<std::string>& vm_args = {}) {
  std::vector<std::string> argv = {std::string(PLACEBENCH_SOURCE_DIR) + "/scripts/numa-vm.sh", "--nodes", "2",
                                   "--mem-per-node", "256", "--timeout", "300"};
  argv.insert(argv.end(), vm_args.begin(), vm_args.end());
  argv.insert(argv.end(), {"--", placebench_binary()});
  argv.insert(argv.end(), command.begin(), command.end());
  VmRun run{run_command(argv, 400), {}};
  if (!run.result.out.empty()) run.record = nlohmann::json::parse(run.result.out, nullptr, false);
  return run;
}

// The present pages of a placement record's histogram: {node: count}.
inline std::map<std::string, std::size_t> pages(const nlohmann::json& rec) {
  std::map<std::string, std::size_t> out;
  for (auto& [k, v] : rec["pages"].items()) out[k] = v.get<std::size_t>();
  return out;
}

}  // namespace placebench::testing
