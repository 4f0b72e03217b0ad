// The CPU triad against hand-computed values, in place, and with separately rounded product and sum.
#include "placebench/kernels/memory_kernels.h"

#include <gtest/gtest.h>

#include <vector>

using namespace placebench::kernels;

TEST(Triad, HandComputedValues) {
  const std::vector<float> b{1, 2, 3, -4, 0.5f};
  const std::vector<float> c{10, 20, 30, 40, 0.25f};
  std::vector<float> a(5, -1);
  triad_cpu(a.data(), b.data(), c.data(), 3.0f, 4);  // the fifth element is outside the range
  EXPECT_EQ(a, (std::vector<float>{31, 62, 93, 116, -1}));
  triad_cpu(a.data(), b.data(), c.data(), -0.5f, 5);
  EXPECT_EQ(a, (std::vector<float>{-4, -8, -12, -24, 0.375f}));
}

TEST(Triad, InPlaceOverEitherInput) {
  std::vector<float> b{1, 2, 3};
  const std::vector<float> c{4, 5, 6};
  triad_cpu(b.data(), b.data(), c.data(), 2.0f, b.size());
  EXPECT_EQ(b, (std::vector<float>{9, 12, 15}));
  std::vector<float> c2{4, 5, 6};
  triad_cpu(c2.data(), b.data(), c2.data(), 1.0f, c2.size());
  EXPECT_EQ(c2, (std::vector<float>{13, 17, 21}));
}

TEST(Triad, RoundsTheProductBeforeTheSum) {
  // s*c = (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the 2^-24 is lost when the product is rounded to float,
  // kept by a fused multiply-add (b + s*c = 2^-11 + 2^-24 exactly). The GPU kernel rounds separately too.
  const float s = 1.0f + 0x1p-12f;
  const float b = -1.0f;
  float a = 0;
  triad_cpu(&a, &b, &s, s, 1);
  EXPECT_EQ(a, 0x1p-11f);
}
