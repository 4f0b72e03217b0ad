// The nvcc-compiled side of the CUDA backend: each function enqueues one kernel and returns
// cudaGetLastError(). Argument checks, launch shapes and exceptions stay in host code (launchers.cpp),
// so the .cu files hold kernels only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace placebench::kernels::detail {

// Every kernel is a grid-stride loop; kernels that reduce within a block need whole warps.
inline constexpr unsigned kBlockThreads = 256;

struct LaunchShape {
  unsigned grid_blocks = 1;
  unsigned block_threads = kBlockThreads;
};

// Adds S of the batch checksum into *sum. `data` must be 16-byte aligned.
cudaError_t enqueue_batch_checksum_kernel(const void* data, std::size_t bytes, unsigned long long* sum,
                                          LaunchShape shape, cudaStream_t stream);

cudaError_t enqueue_compute_kernel(std::uint32_t* data, std::size_t elements, std::uint32_t iterations,
                                   LaunchShape shape, cudaStream_t stream);

cudaError_t enqueue_triad_kernel(float* a, const float* b, const float* c, float scalar,
                                 std::size_t elements, LaunchShape shape, cudaStream_t stream);

}  // namespace placebench::kernels::detail
