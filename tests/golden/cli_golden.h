// What the golden tests of the real placebench share: a committed fixture's absolute path, a fresh
// directory for the files a command writes, and running the binary to compare its stdout with
// tests/golden/cli/NAME (golden.h's matches_golden does the comparing and the regenerating).
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "golden.h"
#include "run_command.h"

namespace placebench::golden {

inline std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/" + rel; }

// A fresh directory for files a command writes, this process's own (two builds' tests may run at once);
// its path reads {{TMP}} in the goldens.
inline std::string temp_dir(const std::string& name) {
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("pb-golden-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Runs placebench with `args` (and `env`, NAME=VALUE each), expects `exit_code` and nothing on stderr,
// and compares stdout with tests/golden/cli/GOLDEN.
inline void expect_cli_golden(const std::vector<std::string>& args, int exit_code, const std::string& golden,
                              const Substitutions& extra = {}, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{testing::placebench_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::CommandResult r = testing::run_command(argv, 60, env);
  ASSERT_EQ(r.exit_code, exit_code) << golden << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
  EXPECT_EQ(r.err, "") << golden;
  EXPECT_TRUE(matches_golden(r.out, "cli/" + golden, extra));
}

}  // namespace placebench::golden
