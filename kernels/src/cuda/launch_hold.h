// Launcher of the stream-holding spin kernel (hold_kernel.cu), for staging_copy.cpp.
#pragma once
#include <cuda_runtime.h>

namespace placebench::kernels::detail {

// Indices of the two words of mapped pinned host memory the kernel shares with the host.
inline constexpr int kHoldRelease = 0;   // the host writes non-zero to release the stream
inline constexpr int kHoldTimedOut = 1;  // the kernel writes 1 when it left by its deadline instead

// Spins until words[kHoldRelease] becomes non-zero, or max_cycles pass: the deadline means a host that
// dies before releasing it cannot hang the GPU, and words[kHoldTimedOut] tells the host it happened.
void launch_hold(volatile int* words, long long max_cycles, cudaStream_t stream);

}  // namespace placebench::kernels::detail
