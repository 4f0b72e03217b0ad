// The one integer rule (options.h; docs/cli.md, "Values", Integers) for every integer option of every
// subcommand, found from the parser itself, so that a new option cannot miss it: an option is an integer
// one when CLI11 accepts a small whole number N for it and refuses "x" and "N.0" (a float option takes
// it). Each must then read "0N" and "00N" as N (CLI11 alone reads "010" as octal 8 and refuses "08") and
// refuse the other spellings. The cases end to end: `queue --seed 010` records 10, `audit --pid
// 04242` audits pid 4242; and SOURCE_DATE_EPOCH follows the same rule.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "placebench/harness/cli/options.h"
#include "cli_integer_options.h"
#include "fixtures.h"
#include "fleet_fixtures.h"
#include "run_command.h"

using namespace placebench::testing;

TEST(IntegerOptions, EveryIntegerOptionReadsLeadingZerosAsDecimalAndRefusesOtherSpellings) {
  const std::vector<IntegerOption> options = find_integer_options();
  std::set<std::string> names;
  for (const auto& o : options) names.insert(o.sub + " " + o.option);
  // The search finds the options the issue names, so it cannot silently find nothing.
  for (const char* known : {"plan --gpu", "run --seed", "queue --seed", "audit --pid", "collective --iters", "gang --retries",
                            "pipeline --workers", "feasible --search-limit", "decide --gpus"})
    EXPECT_TRUE(names.count(known)) << known << " was not found as an integer option";
  EXPECT_GE(options.size(), 30u);
  std::cout << options.size() << " integer options found in the parser\n";
  for (const auto& o : options) {
    const std::string where = o.sub + " " + o.option + " ";
    for (const std::string& zeros : {"0" + o.value, "00" + o.value}) {
      OptionProbe p = probe_option(o.sub, o.option, zeros);
      EXPECT_FALSE(p.refused) << where << zeros;
      EXPECT_EQ(p.results, std::vector<std::string>{o.value}) << where << zeros << " must be read as " << o.value;
    }
    for (const std::string& bad : std::vector<std::string>{"0x" + o.value, "0X" + o.value, "0o" + o.value, "0b1", "+" + o.value, o.value + "e0",
                                                           "1e3", " " + o.value, o.value + " ", o.value + ".0", o.value + "_0"})
      EXPECT_TRUE(probe_option(o.sub, o.option, bad).refused) << where << "'" << bad << "' must be refused";
  }
}

TEST(IntegerOptions, TheRuleItself) {
  using placebench::harness::parse_decimal;
  bool out_of_range = false;
  EXPECT_EQ(parse_decimal("010", out_of_range), 10);
  EXPECT_EQ(parse_decimal("-007", out_of_range), -7);
  EXPECT_EQ(parse_decimal("4611686018427387904", out_of_range), 1ll << 62);
  EXPECT_EQ(parse_decimal("99999999999999999999", out_of_range), std::nullopt);
  EXPECT_TRUE(out_of_range);
  for (const char* bad : {"", "-", "0x10", "+5", "1e3", " 5", "5 ", "1.0", "1_0", "٣"}) {
    EXPECT_EQ(parse_decimal(bad, out_of_range), std::nullopt) << bad;
    EXPECT_FALSE(out_of_range) << bad;
  }
}

TEST(IntegerOptions, QueueSeedWithALeadingZeroIsRecordedInDecimal) {
  const std::string fixtures = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/queue/";
  CommandResult r = run_command({placebench_binary(), "queue", "--inventory", fixtures + "article-cluster-fragmented.yaml",
                                 "--mix", fixtures + "pairs-mix.yaml", "--seed", "010", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["mix"]["seed"], 10);
}

TEST(IntegerOptions, AuditPidWithALeadingZeroIsThatPidInDecimal) {
  const std::string audit = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit";
  CommandResult r = run_command({placebench_binary(), "audit", "--json", "--no-managers", "--proc-root", audit + "/proc",
                                 "--topology", own_topology("2s2n-4gpu.xml"), "--pid", "04242"});
  ASSERT_EQ(r.exit_code == 0 || r.exit_code == 1, true) << r.err;  // 4242 is a fixture process (octal 04242 is not)
  EXPECT_EQ(nlohmann::json::parse(r.out)["pid"], 4242) << r.out.substr(0, 400);
  CommandResult hex = run_command({placebench_binary(), "audit", "--no-managers", "--proc-root", audit + "/proc", "--pid", "0x10"});
  EXPECT_EQ(hex.exit_code, 2);
  EXPECT_NE(hex.err.find("--pid"), std::string::npos) << hex.err;
}

// The integer environment variables the command line reads follow the same rule.
TEST(IntegerOptions, SourceDateEpochIsDecimalToo) {
  const std::string dir = ::testing::TempDir() + "/pb-integer-env-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  for (const char* host : {"a", "b"}) write_synthetic_node(dir + "/" + host, SyntheticNode{host});
  CommandResult ok = run_command({placebench_binary(), "fleet", dir, "--json", "-"}, 60, {"SOURCE_DATE_EPOCH=01764547200"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["generated_at"], "2025-12-01T00:00:00Z");
  for (const char* bad : {"SOURCE_DATE_EPOCH=+1764547200", "SOURCE_DATE_EPOCH= 1764547200", "SOURCE_DATE_EPOCH=0x10"}) {
    CommandResult r = run_command({placebench_binary(), "fleet", dir}, 60, {bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("SOURCE_DATE_EPOCH="), std::string::npos) << r.err;
  }
  std::filesystem::remove_all(dir);
}
