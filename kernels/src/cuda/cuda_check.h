// PB_CUDA_CALL(expr): runs a CUDA runtime call and throws CudaError naming the error, the call, the file
// and the line when it fails. PB_CUDA_CALL_NOEXCEPT(expr) reports to stderr instead, for destructors.
// Internal to src/cuda: nothing outside the CUDA backend includes a CUDA header.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "placebench/kernels/cuda_error.h"

namespace placebench::kernels::detail {

inline std::string describe_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  return std::string("CUDA error ") + std::to_string(static_cast<int>(err)) + " (" + cudaGetErrorName(err) +
         ": " + cudaGetErrorString(err) + ") in " + call + " at " + file + ":" + std::to_string(line);
}

inline void cuda_call(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw CudaError(static_cast<int>(err), describe_cuda_error(err, call, file, line));
}

inline void cuda_call_noexcept(cudaError_t err, const char* call, const char* file, int line) noexcept {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "placebench: %s (ignored: in a destructor)\n",
                 describe_cuda_error(err, call, file, line).c_str());
  }
}

}  // namespace placebench::kernels::detail

#define PB_CUDA_CALL(expr) ::placebench::kernels::detail::cuda_call((expr), #expr, __FILE__, __LINE__)
#define PB_CUDA_CALL_NOEXCEPT(expr) \
  ::placebench::kernels::detail::cuda_call_noexcept((expr), #expr, __FILE__, __LINE__)
