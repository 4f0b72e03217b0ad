#include <gtest/gtest.h>

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
