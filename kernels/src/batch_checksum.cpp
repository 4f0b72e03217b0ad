// CPU reference of the batch checksum (definition in batch_checksum.h). The bulk loop keeps four
// independent sums so the four multiplies in flight hide the multiplier's latency; the host backend uses
// it in measurements, so it must stay near memory bandwidth.
#include "placebench/kernels/batch_checksum.h"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace placebench::kernels {

static_assert(std::endian::native == std::endian::little,
              "the checksum reads words little-endian, as the GPU does; add a byte swap for this target");

namespace {

std::uint64_t load_word(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Sum of t_i over the full words [first, end) of `base`.
std::uint64_t sum_full_words(const unsigned char* base, std::size_t first, std::size_t end) {
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::uint64_t mix = batch_checksum_index_mix(first);  // i * kChecksumIndexMul, advanced by addition
  std::size_t i = first;
  constexpr std::uint64_t k = kChecksumIndexMul;
  for (; i + 4 <= end; i += 4, mix += 4 * k) {
    const unsigned char* p = base + 8 * i;
    s0 += batch_checksum_permute(load_word(p) ^ mix);
    s1 += batch_checksum_permute(load_word(p + 8) ^ (mix + k));
    s2 += batch_checksum_permute(load_word(p + 16) ^ (mix + 2 * k));
    s3 += batch_checksum_permute(load_word(p + 24) ^ (mix + 3 * k));
  }
  for (; i < end; ++i, mix += k) s0 += batch_checksum_permute(load_word(base + 8 * i) ^ mix);
  return s0 + s1 + s2 + s3;
}

}  // namespace

std::uint64_t batch_checksum_partial_cpu(const void* data, std::size_t bytes, std::size_t first_word,
                                         std::size_t end_word) {
  const std::size_t words = batch_checksum_word_count(bytes);
  if (first_word > end_word || end_word > words) {
    throw std::invalid_argument("batch_checksum_partial_cpu: word range [" + std::to_string(first_word) +
                                ", " + std::to_string(end_word) + ") is not inside the " +
                                std::to_string(words) + " words of a " + std::to_string(bytes) +
                                "-byte batch");
  }
  const auto* base = static_cast<const unsigned char*>(data);
  const std::size_t full_words = bytes / 8;
  std::uint64_t sum = sum_full_words(base, first_word, end_word < full_words ? end_word : full_words);
  if (first_word <= full_words && end_word > full_words) {  // the zero-padded tail word is in range
    std::uint64_t tail = 0;
    std::memcpy(&tail, base + 8 * full_words, bytes - 8 * full_words);  // low bytes: little-endian
    sum += batch_checksum_term(tail, full_words);
  }
  return sum;
}

std::uint64_t batch_checksum_cpu(const void* data, std::size_t bytes) {
  return batch_checksum_finalize(
      batch_checksum_partial_cpu(data, bytes, 0, batch_checksum_word_count(bytes)), bytes);
}

std::uint64_t batch_checksum_cpu_partitioned(const void* data, std::size_t bytes, unsigned grid_blocks,
                                             unsigned block_threads) {
  if (grid_blocks == 0 || block_threads == 0) {
    throw std::invalid_argument("batch_checksum_cpu_partitioned: grid_blocks and block_threads must be > 0");
  }
  const std::size_t threads = std::size_t{grid_blocks} * block_threads;
  const std::size_t full_words = bytes / 8;
  const std::size_t pairs = full_words / 2;
  std::vector<std::uint64_t> thread_sums(threads, 0);
  for (std::size_t p = 0; p < pairs; ++p) {
    thread_sums[p % threads] += batch_checksum_partial_cpu(data, bytes, 2 * p, 2 * p + 2);
  }
  thread_sums[0] += batch_checksum_partial_cpu(data, bytes, 2 * pairs, batch_checksum_word_count(bytes));

  std::uint64_t total = 0;
  for (std::size_t block = grid_blocks; block-- > 0;) {  // block sums arrive in any order; reverse here
    std::uint64_t block_sum = 0;
    for (std::size_t t = 0; t < block_threads; ++t) block_sum += thread_sums[block * block_threads + t];
    total += block_sum;
  }
  return batch_checksum_finalize(total, bytes);
}

}  // namespace placebench::kernels
