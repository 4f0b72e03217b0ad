#include "placebench/hostpipe/process_limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

using namespace placebench::hostpipe;

TEST(ProcessLimits, ReadsLiveStatus) {
  AllowedSets sets = read_allowed_sets();
  EXPECT_FALSE(sets.cpus.empty());
  EXPECT_FALSE(sets.mems.empty());
  auto affinity = current_thread_affinity();
  EXPECT_FALSE(affinity.empty());
  for (int cpu : affinity) EXPECT_NE(std::find(sets.cpus.begin(), sets.cpus.end(), cpu), sets.cpus.end());
}

TEST(ProcessLimits, ReadsARestrictedCgroupView) {
  std::string path = testing::TempDir() + "/status";
  std::ofstream(path) << "Name:\tx\nCpus_allowed_list:\t2-3\nMems_allowed_list:\t1\n";
  AllowedSets sets = read_allowed_sets(path);
  EXPECT_EQ(sets.cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(sets.mems, (std::vector<int>{1}));
  std::ofstream(path) << "Name:\tx\n";
  EXPECT_THROW(read_allowed_sets(path), std::runtime_error);
  EXPECT_THROW(read_allowed_sets("/nonexistent/status"), std::runtime_error);
}
