// Where test fixtures live: the project's own (always present) and the shared reference topologies
// (../shared/fixtures/topologies beside the checkout; tests that need them skip when absent).
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

namespace placebench::testing {

inline std::string own_topology(const std::string& name) {
  return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/topologies/" + name;
}

inline std::string shared_topology_dir() {
  if (const char* env = std::getenv("PLACEBENCH_SHARED_FIXTURES")) return env;
  return std::string(PLACEBENCH_SOURCE_DIR) + "/../shared/fixtures/topologies";
}

// Path to a shared topology, or "" when the shared folder is absent.
inline std::string shared_topology(const std::string& name) {
  std::string p = shared_topology_dir() + "/" + name;
  return std::filesystem::exists(p) ? p : "";
}

}  // namespace placebench::testing

#define PB_SHARED_TOPOLOGY_OR_SKIP(var, name)                                                  \
  std::string var = placebench::testing::shared_topology(name);                               \
  if (var.empty()) GTEST_SKIP() << "shared fixture " << name << " absent (looked in "        \
                                << placebench::testing::shared_topology_dir() << ")"
