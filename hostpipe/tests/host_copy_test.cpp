#include "placebench/hostpipe/host_copy.h"

#include <gtest/gtest.h>

#include <vector>

using namespace placebench::hostpipe;

TEST(HostCopy, CopiesArriveAndAreChecked) {
  for (std::size_t bytes : {1u, 7u, 8u, 4096u, 100003u}) {
    std::vector<unsigned char> src(bytes), dst(bytes, 0);
    fill_pattern(src.data(), bytes, 42);
    EXPECT_EQ(find_pattern_mismatch(src.data(), bytes, 42), std::nullopt);
    double s = timed_host_copies(dst.data(), src.data(), bytes, 3);
    EXPECT_GE(s, 0.0);
    EXPECT_EQ(find_pattern_mismatch(dst.data(), bytes, 42), std::nullopt) << bytes;
  }
}

TEST(HostCopy, MismatchesAreFoundAtTheirOffset) {
  std::vector<unsigned char> buf(1000);
  fill_pattern(buf.data(), buf.size(), 7);
  EXPECT_TRUE(find_pattern_mismatch(buf.data(), buf.size(), 8).has_value());  // another seed
  buf[997] ^= 0x10;
  EXPECT_EQ(find_pattern_mismatch(buf.data(), buf.size(), 7), 997u);
  buf[997] ^= 0x10;
  buf[3] ^= 1;
  EXPECT_EQ(find_pattern_mismatch(buf.data(), buf.size(), 7), 3u);
}
