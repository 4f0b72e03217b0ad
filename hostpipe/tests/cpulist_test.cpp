#include "placebench/hostpipe/cpulist.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace placebench::hostpipe;

TEST(Cpulist, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpulist("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpulist(""), std::vector<int>{});
  EXPECT_EQ(parse_cpulist("5"), std::vector<int>{5});
}

TEST(Cpulist, RejectsGarbage) {
  EXPECT_THROW(parse_cpulist("0-"), std::invalid_argument);
  EXPECT_THROW(parse_cpulist("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpulist("a"), std::invalid_argument);
  EXPECT_THROW(parse_cpulist("1,,2"), std::invalid_argument);
}

TEST(Cpulist, FormatsAsRanges) {
  EXPECT_EQ(format_cpulist({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpulist({3, 1, 2, 2}), "1-3");
  EXPECT_EQ(format_cpulist({}), "");
}

TEST(Cpulist, RoundTrips) {
  for (const char* s : {"0-15,32-47", "0", "1,3,5", "0-1"}) EXPECT_EQ(format_cpulist(parse_cpulist(s)), s);
}

TEST(Cpulist, OverlappingAndUnorderedRangesGiveEachIdOnce) {
  EXPECT_EQ(parse_cpulist("8-10,0-3,2-5,9,4"), (std::vector<int>{0, 1, 2, 3, 4, 5, 8, 9, 10}));
}

TEST(Cpulist, AnIdAboveTheLimitIsRefusedWithTheLimit) {
  EXPECT_EQ(parse_cpulist("16383").size(), 1u);
  try {
    parse_cpulist("0-2147483647");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'2147483647' is above 16383"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_cpulist("16384"), std::invalid_argument);
}

TEST(Cpulist, RepeatedFullRangesCostTheirTextNotTheirIds) {
  std::string many;
  for (int i = 0; i < 100000; ++i) many += "0-16383,";
  many += "0";
  std::vector<int> ids = parse_cpulist(many);
  ASSERT_EQ(ids.size(), 16384u);
  EXPECT_EQ(ids.front(), 0);
  EXPECT_EQ(ids.back(), 16383);
}
