// Triad kernel (definition in memory_kernels.h). __fmul_rn/__fadd_rn are never contracted into an FMA,
// so results match triad_cpu bit for bit; the kernel is bound by memory bandwidth either way.
#include "launch_kernels.h"
#include "placebench/kernels/memory_kernels.h"

namespace placebench::kernels::detail {
namespace {

// No __restrict__: `a` may be the same buffer as `b` or `c`.
__global__ void triad_kernel(float* a, const float* b, const float* c, float scalar, std::size_t elements) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first; i < elements; i += threads) {
    a[i] = __fadd_rn(b[i], __fmul_rn(scalar, c[i]));
  }
}

}  // namespace

cudaError_t enqueue_triad_kernel(float* a, const float* b, const float* c, float scalar, std::size_t elements,
                                 LaunchShape shape, cudaStream_t stream) {
  triad_kernel<<<shape.grid_blocks, shape.block_threads, 0, stream>>>(a, b, c, scalar, elements);
  return cudaGetLastError();
}

}  // namespace placebench::kernels::detail
