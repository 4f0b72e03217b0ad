// Host copy loop and pattern check (see host_copy.h).
#include "placebench/hostpipe/host_copy.h"

#include <chrono>
#include <cstring>

namespace placebench::hostpipe {
namespace {

inline std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t index) {
  // splitmix64 of (seed, index): cheap, and every word differs.
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

double timed_host_copies(void* dst, const void* src, std::size_t bytes, int copies) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < copies; ++i) {
    std::memcpy(dst, src, bytes);
    // Keep the compiler from merging or dropping repeated identical copies.
    asm volatile("" : : "r"(dst) : "memory");
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void fill_pattern(void* data, std::size_t bytes, std::uint64_t seed) {
  auto* p = static_cast<unsigned char*>(data);
  std::size_t words = bytes / 8;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w = pattern_word(seed, i);
    std::memcpy(p + i * 8, &w, 8);
  }
  std::uint64_t tail = pattern_word(seed, words);
  std::memcpy(p + words * 8, &tail, bytes % 8);
}

std::optional<std::size_t> find_pattern_mismatch(const void* data, std::size_t bytes, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t words = bytes / 8;
  for (std::size_t i = 0; i <= words; ++i) {
    std::uint64_t w = pattern_word(seed, i);
    std::size_t n = i < words ? 8 : bytes % 8;
    if (n && std::memcmp(p + i * 8, &w, n) != 0) {
      const auto* wb = reinterpret_cast<const unsigned char*>(&w);
      for (std::size_t b = 0; b < n; ++b)
        if (p[i * 8 + b] != wb[b]) return i * 8 + b;
    }
  }
  return std::nullopt;
}

}  // namespace placebench::hostpipe
