// The run directory survives crashes: appended lines are complete, a truncated last line is ignored
// (and repaired on resume), a damaged middle line or a foreign schema is a clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"

using namespace placebench::harness;

TEST(RunDirectory, AppendReadTruncateRepair) {
  std::string dir = ::testing::TempDir() + "/pb-rundir";
  std::filesystem::remove_all(dir);
  RunDirectory rd = RunDirectory::create("", dir, "h", {{"schema_version", kResultsSchemaVersion}});
  rd.append_trial({{"round", 0}});
  rd.append_trial({{"round", 1}});
  std::ofstream(dir + "/trials.jsonl", std::ios::app) << "{\"round\": 2, \"ste";
  RunDirectory again = RunDirectory::open(dir);
  std::vector<std::string> warnings;
  EXPECT_EQ(again.read_trials(warnings).size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("trials.jsonl:3: truncated"), std::string::npos);
  warnings.clear();
  again.read_trials(warnings, true);
  again.append_trial({{"round", 2}});
  warnings.clear();
  auto trials = again.read_trials(warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[2]["round"], 2);
  EXPECT_THROW(RunDirectory::create("", dir, "h", {}), InputError);  // never overwrite a run
}

TEST(RunDirectory, DamagedFilesAreInputErrors) {
  std::string dir = ::testing::TempDir() + "/pb-rundir-bad";
  std::filesystem::remove_all(dir);
  EXPECT_THROW(RunDirectory::open(dir), InputError);
  RunDirectory::create("", dir, "h", {{"schema_version", kResultsSchemaVersion}});
  std::ofstream(dir + "/trials.jsonl") << "{\"a\":1}\nnot json\n{\"a\":2}\n";
  std::vector<std::string> w;
  EXPECT_THROW(RunDirectory::open(dir).read_trials(w), InputError);
  std::ofstream(dir + "/run.json") << "{\"schema_version\": 99}";
  EXPECT_THROW(RunDirectory::open(dir), InputError);
}
