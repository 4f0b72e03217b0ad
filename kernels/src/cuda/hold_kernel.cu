// A kernel that spins until the host releases it: holds a stream while a batch of copies is queued.
#include <cuda_runtime.h>

#include "launch_hold.h"

namespace placebench::kernels::detail {

__global__ void hold_stream_kernel(volatile int* words, long long max_cycles) {
  long long start = clock64();
  while (words[kHoldRelease] == 0) {
    if (clock64() - start >= max_cycles) {
      words[kHoldTimedOut] = 1;  // the host sees it once the stream passes the kernel
      __threadfence_system();
      return;
    }
  }
}

void launch_hold(volatile int* words, long long max_cycles, cudaStream_t stream) {
  hold_stream_kernel<<<1, 1, 0, stream>>>(words, max_cycles);
}

}  // namespace placebench::kernels::detail
