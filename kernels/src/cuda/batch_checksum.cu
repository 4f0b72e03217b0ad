// Batch checksum kernel (definition in batch_checksum.h; its CPU mirror is
// batch_checksum_cpu_partitioned). Sums t_i with 16-byte loads in a grid-stride loop, reduces each block
// with warp shuffles, and adds the block's sum atomically: addition mod 2^64 commutes, so the result
// does not depend on the order in which blocks finish.
#include "launch_kernels.h"
#include "placebench/kernels/batch_checksum.h"

namespace placebench::kernels::detail {
namespace {

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Thread 0's extra work: an odd last full word and the zero-padded tail word.
__device__ unsigned long long leftover_terms(const unsigned char* data, std::size_t bytes) {
  const std::size_t full_words = bytes / 8;
  unsigned long long sum = 0;
  if (full_words % 2 != 0) {
    const std::size_t i = full_words - 1;
    sum += batch_checksum_term(reinterpret_cast<const unsigned long long*>(data)[i], i);
  }
  if (bytes % 8 != 0) {
    unsigned long long tail = 0;
    for (std::size_t b = 8 * full_words; b < bytes; ++b) {
      tail |= static_cast<unsigned long long>(data[b]) << (8 * (b % 8));  // little-endian
    }
    sum += batch_checksum_term(tail, full_words);
  }
  return sum;
}

__global__ void batch_checksum_kernel(const unsigned char* __restrict__ data, std::size_t bytes,
                                      unsigned long long* __restrict__ sum) {
  const std::size_t pairs = bytes / 16;
  const auto* pair_words = reinterpret_cast<const ulonglong2*>(data);
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;

  unsigned long long acc = 0;
  for (std::size_t p = thread; p < pairs; p += threads) {
    const ulonglong2 w = pair_words[p];
    acc += batch_checksum_term(w.x, 2 * p) + batch_checksum_term(w.y, 2 * p + 1);
  }
  if (thread == 0) acc += leftover_terms(data, bytes);

  __shared__ unsigned long long warp_sums[32];
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  acc = warp_sum(acc);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
    acc = warp_sum(acc);
    if (lane == 0) atomicAdd(sum, acc);
  }
}

}  // namespace

cudaError_t enqueue_batch_checksum_kernel(const void* data, std::size_t bytes, unsigned long long* sum,
                                          LaunchShape shape, cudaStream_t stream) {
  batch_checksum_kernel<<<shape.grid_blocks, shape.block_threads, 0, stream>>>(
      static_cast<const unsigned char*>(data), bytes, sum);
  return cudaGetLastError();
}

}  // namespace placebench::kernels::detail
