// The CPU compute step against hand-computed rounds and the LCG's closed form, and its calibration.
#include "placebench/kernels/compute.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

using namespace placebench::kernels;
using namespace std::chrono_literals;

namespace {

// x_n = A^n x_0 + C (A^{n-1} + ... + 1) mod 2^32, by repeated squaring: an independent way to the
// result of n rounds.
std::uint32_t jump(std::uint32_t x, std::uint64_t n) {
  std::uint32_t mul = 1, add = 0;                      // the composed map so far: x -> mul*x + add
  std::uint32_t step_mul = 1664525u, step_add = 1013904223u;  // the map of 2^k rounds
  for (; n > 0; n >>= 1) {
    if (n & 1) {
      mul = step_mul * mul;
      add = step_mul * add + step_add;
    }
    step_add = step_mul * step_add + step_add;
    step_mul = step_mul * step_mul;
  }
  return mul * x + add;
}

}  // namespace

TEST(Compute, RoundsByHand) {
  // 0 -> 1013904223; 1 -> 1664525 + 1013904223; 2^32-1 -> -1664525 + 1013904223.
  EXPECT_EQ(compute_round(0), 1013904223u);
  EXPECT_EQ(compute_round(1), 1015568748u);
  EXPECT_EQ(compute_round(0xFFFFFFFFu), 1012239698u);
  // 1664525 * 1013904223 + 1013904223 mod 2^32.
  EXPECT_EQ(compute_round(compute_round(0)), 1196435762u);
}

TEST(Compute, CpuAppliesEveryRoundToEveryElement) {
  std::vector<std::uint32_t> data{0, 1, 7, 0xFFFFFFFFu, 123456789};
  compute_cpu(data.data(), 4, 1);  // the last element is outside the range
  EXPECT_EQ(data, (std::vector<std::uint32_t>{1013904223u, 1015568748u, 7 * 1664525u + 1013904223u,
                                              1012239698u, 123456789}));
  data = {0, 7, 123456789};
  compute_cpu(data.data(), data.size(), 3);
  EXPECT_EQ(data[0], 3519870697u);  // 1196435762 * 1664525 + 1013904223 mod 2^32
  EXPECT_EQ(data[1], 2630631676u);
  compute_cpu(data.data(), data.size(), 0);
  EXPECT_EQ(data[1], 2630631676u);
}

TEST(Compute, CpuMatchesTheClosedFormForEveryTileShape) {
  std::mt19937 rng(1);
  for (std::size_t n : {1, 3, 63, 64, 65, 128, 1000}) {
    for (std::uint32_t iterations : {1u, 2u, 17u, 1000u}) {
      std::vector<std::uint32_t> data(n);
      for (auto& x : data) x = static_cast<std::uint32_t>(rng());
      auto expected = data;
      for (auto& x : expected) x = jump(x, iterations);
      compute_cpu(data.data(), n, iterations);
      ASSERT_EQ(data, expected) << n << " elements, " << iterations << " iterations";
    }
  }
}

TEST(Compute, CalibrationGivesAPositiveRateThatSizesASteps) {
  const double rate = calibrate_iterations_per_ns(4096, 5ms);
  EXPECT_GT(rate, 0.0);
  EXPECT_TRUE(std::isfinite(rate));
  // 1 element-iteration per ns: a 1 ms step over 1000 elements is 1000 iterations.
  EXPECT_EQ(iterations_for_duration(1.0, 1000, 1ms), 1000u);
  EXPECT_EQ(iterations_for_duration(2.5, 10, 4ns), 1u);
  EXPECT_EQ(iterations_for_duration(1.0, 1, 0ns), 0u);
  EXPECT_EQ(iterations_for_duration(1e9, 1, 1h), std::numeric_limits<std::uint32_t>::max());
  EXPECT_GT(iterations_for_duration(rate, 4096, 1ms), 0u);
}

TEST(Compute, RejectsBadArguments) {
  EXPECT_THROW(calibrate_iterations_per_ns(0), std::invalid_argument);
  EXPECT_THROW(iterations_for_duration(0.0, 10, 1ms), std::invalid_argument);
  EXPECT_THROW(iterations_for_duration(std::nan(""), 10, 1ms), std::invalid_argument);
  EXPECT_THROW(iterations_for_duration(1.0, 0, 1ms), std::invalid_argument);
}
