// DeviceGuard: makes a device current for a scope and restores the caller's current device afterwards,
// so the backend never leaves the thread's CUDA state changed. Internal to src/cuda.
#pragma once
#include "cuda_check.h"

namespace placebench::kernels::detail {

class DeviceGuard {
 public:
  enum NoThrow { kNoThrow };

  explicit DeviceGuard(int device) {
    PB_CUDA_CALL(cudaGetDevice(&previous_));
    if (previous_ != device) {
      PB_CUDA_CALL(cudaSetDevice(device));
      changed_ = true;
    }
  }
  // For destructors: failures are reported, not thrown.
  DeviceGuard(int device, NoThrow) noexcept {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    if (previous_ != device) {
      PB_CUDA_CALL_NOEXCEPT(cudaSetDevice(device));
      changed_ = true;
    }
  }
  ~DeviceGuard() {
    if (changed_) PB_CUDA_CALL_NOEXCEPT(cudaSetDevice(previous_));
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace placebench::kernels::detail
