// Exceptions of the CUDA backend. Declared in every build so callers can catch them without #ifs:
// CudaError when a CUDA runtime call fails, CudaBackendNotBuilt when this binary has no CUDA backend.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace placebench::kernels {

// True when the CUDA backend was compiled in (a GPU may still be absent: see query_device_runtime()).
bool cuda_backend_built() noexcept;

// A failed CUDA runtime call; what() names the error, the call, the file and the line.
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }  // the cudaError_t value

 private:
  int code_;
};

// Thrown by every device operation of a binary built without the CUDA backend.
class CudaBackendNotBuilt : public std::runtime_error {
 public:
  explicit CudaBackendNotBuilt(std::string_view operation)
      : std::runtime_error("CUDA backend not built: " + std::string(operation) +
                           " needs a GPU, but this placebench was configured without CUDA "
                           "(PLACEBENCH_ENABLE_CUDA=OFF, or AUTO found no nvcc); reconfigure with the "
                           "CUDA toolkit installed, or use the host backend") {}
};

}  // namespace placebench::kernels
