#include <gtest/gtest.h>
#include <functional>
#include <vector>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"

using namespace placebench::harness;

TEST(Units, Sizes) {
  EXPECT_EQ(parse_size("4K", "x"), 4096u);
  EXPECT_EQ(parse_size("64M", "x"), 64ull << 20);
  EXPECT_EQ(parse_size("1G", "x"), 1ull << 30);
  EXPECT_EQ(parse_size("4KiB", "x"), 4096u);
  EXPECT_EQ(parse_size("1.5K", "x"), 1536u);
  EXPECT_EQ(parse_size("100", "x"), 100u);
  for (const char* bad : {"", "abc", "-4K", "4Q", "0", "0.3"}) EXPECT_THROW(parse_size(bad, "--bytes"), InputError) << bad;
  try {
    parse_size("12X", "--bytes");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--bytes: bad size '12X'", 0), 0u);
  }
  EXPECT_EQ(format_size(64ull << 20), "64 MiB");
  EXPECT_EQ(format_size(1000), "1000 B");
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration_s("90s", "x"), 90);
  EXPECT_DOUBLE_EQ(parse_duration_s("36m", "x"), 2160);
  EXPECT_DOUBLE_EQ(parse_duration_s("2h", "x"), 7200);
  EXPECT_DOUBLE_EQ(parse_duration_s("500ms", "x"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_s("3", "x"), 3);
  EXPECT_THROW(parse_duration_s("3 days", "x"), InputError);
}

TEST(Units, SizeSweeps) {
  EXPECT_EQ(parse_size_sweep("4K:64K:x4", "x"), (std::vector<std::uint64_t>{4096, 16384, 65536}));
  EXPECT_EQ(parse_size_sweep("4K:100K:x4", "x"), (std::vector<std::uint64_t>{4096, 16384, 65536}));
  EXPECT_EQ(parse_size_sweep("4K,1M", "x"), (std::vector<std::uint64_t>{4096, 1u << 20}));
  EXPECT_EQ(parse_size_sweep("8", "x"), (std::vector<std::uint64_t>{8}));
  for (const char* bad : {"4K:1K:x2", "4K:8K:x1", "4K:8K", "4K,,8K", "a:b:x2", "4K:64M:x99999999999999999999"})
    EXPECT_THROW(parse_size_sweep(bad, "--sizes"), InputError) << bad;
}

// K/M/G/T and KiB..TiB are binary, KB..TB decimal (docs/cli.md, "Sizes and durations").
TEST(Units, DecimalAndBinarySizes) {
  EXPECT_EQ(parse_size("64MB", "x"), 64'000'000u);
  EXPECT_EQ(parse_size("64MiB", "x"), 64ull << 20);
  EXPECT_EQ(parse_size("64M", "x"), 64ull << 20);
  EXPECT_EQ(parse_size("1.5KB", "x"), 1500u);
  EXPECT_EQ(parse_size("1kB", "x"), 1000u);
  EXPECT_EQ(parse_size("2GB", "x"), 2'000'000'000u);
  EXPECT_EQ(parse_size("1TB", "x"), 1'000'000'000'000u);
  EXPECT_EQ(parse_size("100B", "x"), 100u);
  for (const char* bad : {"1.5e3", "0x10", "4Kb", "4kib", "4iB", "4 K B", "1e3K", "+4K", "4KK"})
    EXPECT_THROW(parse_size(bad, "--bytes"), InputError) << bad;
}

TEST(Units, SizesHaveAMaximum) {
  EXPECT_EQ(parse_size("1T", "x", 1ull << 40), 1ull << 40);
  for (const char* big : {"2T", "1025G", "99999999999999999999", "1100GB"}) {
    try {
      parse_size(big, "--bytes", 1ull << 40);
      ADD_FAILURE() << big;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--bytes: size '") + big +
                                           "' is more than the maximum 1T; give a size of at most 1T");
    }
  }
  std::string digits(400, '9');  // beyond a double: infinite, still refused
  EXPECT_THROW(parse_size(digits, "x"), InputError);
  EXPECT_THROW(parse_size("1025T", "x"), InputError);  // above the default 1 PiB
  EXPECT_THROW(parse_size_sweep("4K:2T:x4", "--sizes", 1ull << 40), InputError);
  EXPECT_EQ(format_size(1ull << 50), "1 PiB");
}

TEST(Units, BoundedDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_s("1h", "x", 3600), 3600);
  EXPECT_DOUBLE_EQ(parse_duration_s("0s", "x", 3600), 0);
  try {
    parse_duration_s("99999999999999999999s", "--deadline", 3600);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--deadline: duration '99999999999999999999s' is longer than the maximum 1h; give a duration of at most 1h");
  }
  EXPECT_THROW(parse_duration_s("1" + std::string(400, '0') + "s", "x", kSecondsPerYear), InputError);  // infinite
  EXPECT_THROW(parse_duration_s("8761h", "x", kSecondsPerYear), InputError);
  EXPECT_THROW(parse_duration_s("601s", "--backoff", 600), InputError);
  EXPECT_EQ(format_duration(3600), "1h");
  EXPECT_EQ(format_duration(600), "10m");
  EXPECT_EQ(format_duration(90), "90s");
  EXPECT_EQ(format_duration(kSecondsPerYear), "8760h");
}

// A value of 50,000 characters crashed std::regex (stack overflow; tests/fuzz/regressions/config and
// decision); a long value is now refused by its length, with the value shortened in the message.
TEST(Units, LongValuesAreRefusedByTheirLengthNotARegex) {
  std::string long_size(50000, '1'), long_duration = std::string(50000, '9') + "s";
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { parse_size(long_size, "--bytes"); },
           [&] { parse_duration_s(long_duration, "--deadline"); },
           [&] { parse_size_sweep(long_size, "--sizes"); }}) {
    try {
      call();
      FAIL() << "accepted a value of 50,000 characters";
    } catch (const placebench::harness::InputError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("characters long"), std::string::npos) << what;
      EXPECT_LT(what.size(), 200u) << what;
    }
  }
}
