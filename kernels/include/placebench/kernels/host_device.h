// PLACEBENCH_HOST_DEVICE marks the small formula functions that the CPU reference and the CUDA kernels
// share, so each formula is written once. Expands to nothing for the host compiler; no CUDA header needed.
#pragma once

#if defined(__CUDACC__)
#define PLACEBENCH_HOST_DEVICE __host__ __device__
#else
#define PLACEBENCH_HOST_DEVICE
#endif
