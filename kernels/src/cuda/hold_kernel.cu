// A kernel that spins until the host releases it: holds a stream while a batch of copies is queued.
#include <cuda_runtime.h>

#include "launch_hold.h"

namespace placebench::kernels::detail {

__global__ void hold_stream_kernel(volatile int* release, long long max_cycles) {
  long long start = clock64();
  while (*release == 0 && clock64() - start < max_cycles) {
  }
}

void launch_hold(volatile int* release_flag, long long max_cycles, cudaStream_t stream) {
  hold_stream_kernel<<<1, 1, 0, stream>>>(release_flag, max_cycles);
}

}  // namespace placebench::kernels::detail
