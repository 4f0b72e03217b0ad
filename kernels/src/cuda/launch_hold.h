// Launcher of the stream-holding spin kernel (hold_kernel.cu), for staging_copy.cpp.
#pragma once
#include <cuda_runtime.h>

namespace placebench::kernels::detail {

// Spins until *release_flag (mapped pinned host memory) becomes non-zero, or max_cycles pass: the
// deadline means a host that dies before releasing it cannot hang the GPU.
void launch_hold(volatile int* release_flag, long long max_cycles, cudaStream_t stream);

}  // namespace placebench::kernels::detail
