// `placebench staging --backend host` end to end on small sizes.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

TEST(StagingCli, HostBackendLocalIsPositiveAndVerified) {
  for (const char* dir : {"h2d", "d2h", "bidir"}) {
    auto r = run_command({placebench_binary(), "staging", "--backend", "host", "--arm", "local", "--direction", dir,
                          "--sizes", "4K:256K:x8", "--samples", "3", "--json"});
    ASSERT_EQ(r.exit_code, 0) << dir << ": " << r.err;
    json j = json::parse(r.out);
    EXPECT_EQ(j["backend"], "host");
    ASSERT_EQ(j["rows"].size(), 3u);  // 4K, 32K, 256K
    for (const auto& row : j["rows"]) {
      EXPECT_EQ(row["arm"], "local");
      EXPECT_EQ(row["direction"], dir);
      EXPECT_GT(row["gbps_median"].get<double>(), 0.0);
      EXPECT_LE(row["gbps_p10"].get<double>(), row["gbps_p90"].get<double>());
      EXPECT_EQ(row["samples"], 3);
      EXPECT_EQ(row["placement"]["status"], "verified") << row["placement"].dump();
    }
    EXPECT_EQ(j["rows"][2]["bytes"], 256 * 1024);
  }
}

TEST(StagingCli, TableNamesEveryColumn) {
  auto r = run_command({placebench_binary(), "staging", "--backend", "host", "--sizes", "4K", "--samples", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* col : {"Arm", "Size", "GB/s med", "p10", "p90", "samples", "verified"})
    EXPECT_NE(r.out.find(col), std::string::npos) << col;
}

TEST(StagingCli, BadInputExitsTwo) {
  std::vector<std::vector<std::string>> cases = {
      {"staging", "--backend", "host", "--sizes", "4K:1K:x2"},
      {"staging", "--backend", "host", "--sizes", "lots"},
      {"staging", "--backend", "host", "--memory", "hostalloc"},
      {"staging", "--backend", "host", "--arms", "local,nearby"},
      {"staging", "--backend", "quantum"},
      {"staging", "--backend", "host", "--samples", "0"},
      {"staging", "--backend", "host", "--sizes", "1T"},  // more memory than the node has: refused, not mmap failing
  };
  for (auto args : cases) {
    args.insert(args.begin(), placebench_binary());
    auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // A number out of range says what is accepted, in words (not CLI11's range up to DBL_MAX).
  auto zero = run_command({placebench_binary(), "staging", "--backend", "host", "--samples", "0"});
  EXPECT_NE(zero.err.find("--samples: must be more than 0, got 0"), std::string::npos) << zero.err;
  auto negative = run_command({placebench_binary(), "staging", "--backend", "host", "--warmup", "-1"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--warmup: must be 0 or more, got -1"), std::string::npos) << negative.err;
}
