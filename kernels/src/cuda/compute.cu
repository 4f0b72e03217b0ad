// Compute-step kernel (definition in compute.h): each thread runs the dependent multiply-add chain of
// its elements; with many warps per SM the chains' latency is hidden and the SM's IMAD rate sets the time.
#include "launch_kernels.h"
#include "placebench/kernels/compute.h"

namespace placebench::kernels::detail {
namespace {

__global__ void compute_kernel(std::uint32_t* __restrict__ data, std::size_t elements,
                               std::uint32_t iterations) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first; i < elements; i += threads) {
    std::uint32_t x = data[i];
#pragma unroll 8
    for (std::uint32_t k = 0; k < iterations; ++k) x = compute_round(x);
    data[i] = x;
  }
}

}  // namespace

cudaError_t enqueue_compute_kernel(std::uint32_t* data, std::size_t elements, std::uint32_t iterations,
                                   LaunchShape shape, cudaStream_t stream) {
  compute_kernel<<<shape.grid_blocks, shape.block_threads, 0, stream>>>(data, elements, iterations);
  return cudaGetLastError();
}

}  // namespace placebench::kernels::detail
