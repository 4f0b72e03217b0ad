// The CPU batch checksum against its definition: known values, odd sizes, every single-byte corruption,
// and independence from how the GPU splits the batch across blocks.
#include "placebench/kernels/batch_checksum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace placebench::kernels;

namespace {

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

// The definition in batch_checksum.h, written out byte by byte with its constants, independently of the
// library's helpers.
std::uint64_t checksum_by_definition(const unsigned char* data, std::size_t n) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; 8 * i < n; ++i) {
    std::uint64_t w = 0;
    for (std::size_t b = 0; b < 8 && 8 * i + b < n; ++b) w |= std::uint64_t{data[8 * i + b]} << (8 * b);
    const std::uint64_t x = w ^ (i * 0x9E3779B97F4A7C15ull);
    sum += x * (2 * x + 1);
  }
  std::uint64_t h = sum ^ (n * 0xC2B2AE3D27D4EB4Full);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

std::uint64_t checksum_of(const std::string& s) { return batch_checksum_cpu(s.data(), s.size()); }

}  // namespace

TEST(BatchChecksum, KnownValues) {
  // Computed from the definition by a separate Python implementation.
  EXPECT_EQ(batch_checksum_cpu(nullptr, 0), 0x0ull);  // fmix64(0) = 0
  const unsigned char one[] = {1};
  EXPECT_EQ(batch_checksum_cpu(one, 1), 0x2b44c42416d02e46ull);
  const unsigned char one_word[] = {1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(batch_checksum_cpu(one_word, 8), 0x7a74d2e5ac90cf26ull);
  EXPECT_EQ(checksum_of("abc"), 0x58bee4d7c9df6695ull);
  EXPECT_EQ(checksum_of("placebench"), 0x7592d82b941fc8d6ull);
  std::vector<unsigned char> ramp(16);
  std::iota(ramp.begin(), ramp.end(), 1);  // 1..16: two full words
  EXPECT_EQ(batch_checksum_cpu(ramp.data(), ramp.size()), 0x2a037733c2a84164ull);
  ramp.resize(23);
  std::iota(ramp.begin(), ramp.end(), 0);  // 0..22: two full words and a 7-byte tail
  EXPECT_EQ(batch_checksum_cpu(ramp.data(), ramp.size()), 0x84c8e3539cd273ddull);
}

TEST(BatchChecksum, OneByteWorkedByHand) {
  // n = 1, w_0 = 1, x_0 = 1 ^ 0 = 1, t_0 = 1 * 3 = 3, S = 3.
  EXPECT_EQ(batch_checksum_term(1, 0), 3u);
  const unsigned char one[] = {1};
  EXPECT_EQ(batch_checksum_partial_cpu(one, 1, 0, 1), 3u);
  EXPECT_EQ(batch_checksum_cpu(one, 1), batch_checksum_finalize(3, 1));
}

TEST(BatchChecksum, MatchesTheDefinitionAtEverySmallSizeAndLargeOnes) {
  for (std::size_t n : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 39, 40, 41, 63, 64, 65, 100, 4096,
                        4099, 1 << 20, (1 << 20) + 5}) {
    auto data = random_bytes(n, static_cast<unsigned>(n));
    EXPECT_EQ(batch_checksum_cpu(data.data(), n), checksum_by_definition(data.data(), n)) << n << " bytes";
  }
}

TEST(BatchChecksum, DoesNotDependOnAlignment) {
  auto data = random_bytes(1000 + 8, 7);
  for (std::size_t offset = 0; offset < 8; ++offset) {
    std::vector<unsigned char> copy(data.begin() + static_cast<long>(offset),
                                    data.begin() + static_cast<long>(offset) + 1000);
    EXPECT_EQ(batch_checksum_cpu(data.data() + offset, 1000), batch_checksum_cpu(copy.data(), 1000)) << offset;
  }
}

TEST(BatchChecksum, EverySingleByteCorruptionChangesIt) {
  for (std::size_t n : {1, 7, 8, 9, 64, 77, 1027}) {
    auto data = random_bytes(n, 100 + static_cast<unsigned>(n));
    const std::uint64_t good = batch_checksum_cpu(data.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      for (const unsigned char flip : std::initializer_list<unsigned char>{0x01, 0x80, 0xFF, 0x5A}) {
        data[i] ^= flip;
        ASSERT_NE(batch_checksum_cpu(data.data(), n), good) << n << " bytes, byte " << i << " ^ " << int{flip};
        data[i] ^= flip;
      }
    }
    ASSERT_EQ(batch_checksum_cpu(data.data(), n), good);
  }
}

TEST(BatchChecksum, DetectsMovedWordsAndTrailingZeros) {
  auto data = random_bytes(256, 3);
  const std::uint64_t good = batch_checksum_cpu(data.data(), data.size());
  auto swapped = data;
  std::swap_ranges(swapped.begin(), swapped.begin() + 8, swapped.begin() + 64);  // words 0 and 8 swapped
  EXPECT_NE(batch_checksum_cpu(swapped.data(), swapped.size()), good);
  // Same padded words, different lengths: the length is part of the checksum.
  const unsigned char abc[] = {'a', 'b', 'c', 0, 0};
  EXPECT_NE(batch_checksum_cpu(abc, 3), batch_checksum_cpu(abc, 4));
  EXPECT_NE(batch_checksum_cpu(abc, 4), batch_checksum_cpu(abc, 5));
  // An all-zero batch is not the empty checksum.
  std::vector<unsigned char> zeros(4096, 0);
  EXPECT_NE(batch_checksum_cpu(zeros.data(), zeros.size()), 0u);
}

TEST(BatchChecksum, PartialSumsOfAnySplitAddUpInAnyOrder) {
  const std::size_t n = 8 * 1000 + 3;
  auto data = random_bytes(n, 11);
  const std::size_t words = batch_checksum_word_count(n);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::size_t> cuts{0, words};
    for (int i = 0; i < 1 + trial; ++i) cuts.push_back(rng() % (words + 1));
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::uint64_t> parts;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      parts.push_back(batch_checksum_partial_cpu(data.data(), n, cuts[i], cuts[i + 1]));
    }
    std::shuffle(parts.begin(), parts.end(), rng);
    const std::uint64_t sum = std::accumulate(parts.begin(), parts.end(), std::uint64_t{0});
    EXPECT_EQ(batch_checksum_finalize(sum, n), batch_checksum_cpu(data.data(), n)) << "trial " << trial;
  }
}

TEST(BatchChecksum, GpuBlockPartitionGivesTheSameChecksum) {
  for (std::size_t n : {0, 1, 8, 15, 16, 17, 24, 4096, 4101, 65536 + 13}) {
    auto data = random_bytes(n, 200 + static_cast<unsigned>(n));
    const std::uint64_t expected = batch_checksum_cpu(data.data(), n);
    for (auto [grid, block] : {std::pair{1u, 1u}, {1u, 32u}, {3u, 64u}, {7u, 256u}, {132u, 256u}}) {
      EXPECT_EQ(batch_checksum_cpu_partitioned(data.data(), n, grid, block), expected)
          << n << " bytes, grid " << grid << " x " << block;
    }
  }
}

TEST(BatchChecksum, HandlesEmptyRangesAndRejectsBadOnes) {
  const unsigned char data[16] = {};
  EXPECT_THROW(batch_checksum_partial_cpu(data, 16, 1, 3), std::invalid_argument);  // only 2 words
  EXPECT_THROW(batch_checksum_partial_cpu(data, 16, 2, 1), std::invalid_argument);
  EXPECT_EQ(batch_checksum_partial_cpu(data, 16, 2, 2), 0u);
  const unsigned char tail[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // empty ranges are 0, at the tail word too
  EXPECT_EQ(batch_checksum_partial_cpu(tail, 9, 2, 2), 0u);
  EXPECT_EQ(batch_checksum_partial_cpu(tail, 9, 1, 1), 0u);
  EXPECT_EQ(batch_checksum_partial_cpu(tail, 9, 1, 2), batch_checksum_term(9, 1));
  EXPECT_THROW(batch_checksum_cpu_partitioned(data, 16, 0, 32), std::invalid_argument);
  EXPECT_THROW(batch_checksum_cpu_partitioned(data, 16, 1, 0), std::invalid_argument);
}
