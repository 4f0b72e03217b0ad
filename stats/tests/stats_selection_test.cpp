// The O(n log n) selection of Walsh averages and pairwise differences against brute force (every pair
// materialised and sorted) on random data, many seeds, n up to 300, with and without heavy ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "placebench/stats/hodges_lehmann.h"
#include "placebench/stats/selection.h"

using namespace placebench::stats;

namespace {

constexpr int kSeeds = 150;

// Continuous data, or heavily tied data (a few distinct integers), by seed parity.
std::vector<double> sample(std::mt19937_64& rng, std::size_t n, bool tied) {
  std::normal_distribution<double> normal(0.3, 2.0);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<double> v(n);
  for (double& x : v) x = tied ? small(rng) : normal(rng);
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<double> all_walsh(const std::vector<double>& a) {
  std::vector<double> w;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = i; j < a.size(); ++j) w.push_back((a[i] + a[j]) / 2);
  std::sort(w.begin(), w.end());
  return w;
}

std::vector<double> all_differences(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> d;
  for (double xi : x)
    for (double yj : y) d.push_back(yj - xi);
  std::sort(d.begin(), d.end());
  return d;
}

// Ranks worth checking: both ends, the middle, and random ones.
std::vector<std::int64_t> ranks_to_check(std::mt19937_64& rng, std::int64_t count) {
  std::vector<std::int64_t> ks{1, count, (count + 1) / 2, count / 2 + 1};
  std::uniform_int_distribution<std::int64_t> any(1, count);
  for (int i = 0; i < 8; ++i) ks.push_back(any(rng));
  return ks;
}

}  // namespace

TEST(StatsSelection, KthWalshAverageMatchesBruteForce) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::mt19937_64 rng(seed);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 300)(rng);
    const std::vector<double> a = sample(rng, n, seed % 2 == 1);
    const std::vector<double> brute = all_walsh(a);
    ASSERT_EQ(static_cast<std::int64_t>(brute.size()), walsh_count(n));
    for (std::int64_t k : ranks_to_check(rng, walsh_count(n)))
      ASSERT_EQ(kth_walsh_average(a, k), brute[static_cast<std::size_t>(k - 1)]) << "seed " << seed << " k " << k;
    const double t = brute[brute.size() / 3];
    EXPECT_EQ(count_walsh_at_most(a, t), std::upper_bound(brute.begin(), brute.end(), t) - brute.begin());
  }
}

TEST(StatsSelection, KthPairwiseDifferenceMatchesBruteForce) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::mt19937_64 rng(1000 + seed);
    std::uniform_int_distribution<std::size_t> size(1, 300);
    const std::vector<double> x = sample(rng, size(rng), seed % 2 == 1);
    const std::vector<double> y = sample(rng, size(rng), seed % 3 == 1);
    const std::vector<double> brute = all_differences(x, y);
    for (std::int64_t k : ranks_to_check(rng, static_cast<std::int64_t>(brute.size())))
      ASSERT_EQ(kth_pairwise_difference(x, y, k), brute[static_cast<std::size_t>(k - 1)])
          << "seed " << seed << " k " << k;
    const double t = brute[brute.size() / 2];
    EXPECT_EQ(count_differences_at_most(x, y, t), std::upper_bound(brute.begin(), brute.end(), t) - brute.begin());
  }
}

TEST(StatsSelection, HodgesLehmannEstimatesAreBruteForceMedians) {
  for (int seed = 0; seed < 40; ++seed) {
    std::mt19937_64 rng(5000 + seed);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 120)(rng);
    const std::vector<double> a = sample(rng, n, seed % 2 == 0), b = sample(rng, n + 3, false);
    const std::vector<double> w = all_walsh(a), d = all_differences(a, b);
    const auto median = [](const std::vector<double>& v) {
      return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    EXPECT_DOUBLE_EQ(hodges_lehmann_one_sample(a, 0.95).estimate, median(w)) << seed;
    EXPECT_DOUBLE_EQ(hodges_lehmann_two_sample(a, b, 0.95).estimate, median(d)) << seed;
  }
}

// At a size where brute force is too big, the selected value v must satisfy #{< v} < k <= #{<= v}.
TEST(StatsSelection, LargeSelectionIsConsistentWithCounting) {
  std::mt19937_64 rng(77);
  const std::vector<double> a = sample(rng, 20000, false), b = sample(rng, 15000, true);
  for (std::int64_t k : ranks_to_check(rng, walsh_count(a.size()))) {
    const double v = kth_walsh_average(a, k);
    EXPECT_LT(count_walsh_at_most(a, std::nextafter(v, -INFINITY)), k);
    EXPECT_GE(count_walsh_at_most(a, v), k);
  }
  for (std::int64_t k : ranks_to_check(rng, static_cast<std::int64_t>(a.size() * b.size()))) {
    const double v = kth_pairwise_difference(a, b, k);
    EXPECT_LT(count_differences_at_most(a, b, std::nextafter(v, -INFINITY)), k);
    EXPECT_GE(count_differences_at_most(a, b, v), k);
  }
}

TEST(StatsSelection, RejectsRanksOutsideTheMatrix) {
  const std::vector<double> a{1.0, 2.0, 3.0};
  EXPECT_THROW(kth_walsh_average(a, 0), std::invalid_argument);
  EXPECT_THROW(kth_walsh_average(a, 7), std::invalid_argument);
  EXPECT_THROW(kth_pairwise_difference(a, a, 10), std::invalid_argument);
  EXPECT_EQ(kth_walsh_average(a, 6), 3.0);
  EXPECT_EQ(kth_pairwise_difference(a, a, 1), -2.0);
}
