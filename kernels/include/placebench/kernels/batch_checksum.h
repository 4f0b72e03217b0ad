// Batch checksum: what a workload computes to "consume" a staged batch on the device. It reads every
// byte, is cheap enough to run at memory bandwidth, and the host recomputes it to verify the copy.
//
// Definition, for a batch of n bytes:
//   W = ceil(n / 8) words; word w_i (0 <= i < W) is the 8 bytes at offset 8i read little-endian, the
//   last one zero-padded in its high bytes when n is not a multiple of 8.
//   x_i = w_i XOR (i * kChecksumIndexMul)            mod 2^64  position mix: moved words change the sum
//   t_i = x_i * (2 * x_i + 1)                        mod 2^64  a permutation of Z/2^64 (Rivest, "Permutation
//                                                              polynomials modulo 2^w", 2001), nonlinear
//   S   = t_0 + t_1 + ... + t_{W-1}                  mod 2^64  commutative: any split into blocks, summed in
//                                                              any order, gives the same S
//   checksum = fmix64(S XOR (n * kChecksumLengthMul))          murmur3's finalizer (a bijection); n binds
//                                                              the length so zero padding cannot alias
// Guarantees: changing the bytes of any one word (in particular any single byte) always changes the
// checksum, because t_i is a bijection of w_i and fmix64 is a bijection. Other corruption (several
// words, swapped words) is caught with probability ~1 - 2^-64 for unstructured data.
#pragma once
#include <cstddef>
#include <cstdint>

#include "placebench/kernels/device_buffer.h"
#include "placebench/kernels/host_device.h"

namespace placebench::kernels {

inline constexpr std::uint64_t kChecksumIndexMul = 0x9E3779B97F4A7C15ull;   // 2^64 / golden ratio, odd
inline constexpr std::uint64_t kChecksumLengthMul = 0xC2B2AE3D27D4EB4Full;  // murmur3 prime, odd

PLACEBENCH_HOST_DEVICE constexpr std::uint64_t batch_checksum_index_mix(std::uint64_t index) {
  return index * kChecksumIndexMul;
}
PLACEBENCH_HOST_DEVICE constexpr std::uint64_t batch_checksum_permute(std::uint64_t x) {
  return x * (2 * x + 1);
}
// t_i of the definition.
PLACEBENCH_HOST_DEVICE constexpr std::uint64_t batch_checksum_term(std::uint64_t word, std::uint64_t index) {
  return batch_checksum_permute(word ^ batch_checksum_index_mix(index));
}
// checksum = fmix64(S XOR n * kChecksumLengthMul).
PLACEBENCH_HOST_DEVICE constexpr std::uint64_t batch_checksum_finalize(std::uint64_t sum, std::uint64_t bytes) {
  std::uint64_t h = sum ^ (bytes * kChecksumLengthMul);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}
constexpr std::size_t batch_checksum_word_count(std::size_t bytes) { return bytes / 8 + (bytes % 8 != 0); }

// --- CPU reference (always built; used by the host backend, so it runs near memory bandwidth) --------

// The checksum of `bytes` bytes at `data` (any alignment).
std::uint64_t batch_checksum_cpu(const void* data, std::size_t bytes);

// The partial sum of t_i over words [first_word, end_word) of the n = `bytes` byte batch at `data`
// (`data` is the start of the whole batch: the index mix uses global word indexes). Partial sums of
// disjoint ranges add (mod 2^64) to S. std::invalid_argument unless first_word <= end_word <= W.
std::uint64_t batch_checksum_partial_cpu(const void* data, std::size_t bytes, std::size_t first_word,
                                         std::size_t end_word);

// The checksum computed with the device kernel's work assignment, on the CPU: full words are taken in
// pairs (one 16-byte load); pair p goes to global thread p mod (grid_blocks * block_threads); an odd last
// full word and the zero-padded tail word go to global thread 0; each block adds up its threads' sums
// and the block sums are added in arbitrary order (atomics). Equal to batch_checksum_cpu for every
// shape; exists to test that property. std::invalid_argument for a zero grid or block.
std::uint64_t batch_checksum_cpu_partitioned(const void* data, std::size_t bytes, unsigned grid_blocks,
                                             unsigned block_threads);

// --- CUDA backend (CudaBackendNotBuilt without it) ---------------------------------------------------

// The checksum of the first `bytes` of `data`, computed on the device; waits for the result.
std::uint64_t launch_batch_checksum(const DeviceBuffer& data, std::size_t bytes, Stream& stream);

// Asynchronous form: zeroes `sum_slot` (>= 8 bytes on the stream's device) and enqueues the kernel that
// adds S into its first 8 bytes. Once the stream has passed it, read the slot and call
// batch_checksum_finalize(S, bytes).
void enqueue_batch_checksum(const DeviceBuffer& data, std::size_t bytes, DeviceBuffer& sum_slot,
                            Stream& stream);

}  // namespace placebench::kernels
