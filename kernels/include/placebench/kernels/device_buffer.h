// Host-side handles of the CUDA backend: a stream and a device allocation, both owned (RAII) and
// bound to one device index. No CUDA header is included; in builds without the CUDA backend every
// constructor throws CudaBackendNotBuilt, and default-constructed (empty) objects are still valid.
#pragma once
#include <cstddef>

#include "placebench/kernels/cuda_error.h"

// The CUDA runtime's stream type (cudaStream_t is CUstream_st*), declared as the runtime declares it,
// so CUDA-aware callers (NCCL) can use native_handle() directly.
struct CUstream_st;

namespace placebench::kernels {

// A non-blocking CUDA stream on `device`.
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void synchronize();  // waits for all work enqueued so far
  int device() const noexcept { return device_; }
  CUstream_st* native_handle() const noexcept { return stream_; }

 private:
  int device_ = -1;
  CUstream_st* stream_ = nullptr;
};

// `size_bytes` of device memory on `device` (cudaMalloc: at least 256-byte aligned), freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t size_bytes, int device);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() noexcept { return ptr_; }
  const void* data() const noexcept { return ptr_; }
  template <class T>
  T* data_as() noexcept {
    return static_cast<T*>(ptr_);
  }
  template <class T>
  const T* data_as() const noexcept {
    return static_cast<const T*>(ptr_);
  }
  std::size_t size_bytes() const noexcept { return size_bytes_; }
  int device() const noexcept { return device_; }
  bool empty() const noexcept { return size_bytes_ == 0; }

  // Copies of the first `bytes` of the buffer; std::out_of_range when bytes > size_bytes().
  // The plain forms copy on a non-blocking stream of their own (never the legacy default stream) and
  // return when the copy is done; they are not ordered after work on other streams, so synchronise the
  // streams that write or read the buffer first. The _async forms are ordered on `stream` (the host
  // memory must stay valid until the stream reaches them, and must be pinned for the copy to overlap).
  void copy_from_host(const void* src, std::size_t bytes);
  void copy_to_host(void* dst, std::size_t bytes) const;
  void copy_from_host_async(const void* src, std::size_t bytes, Stream& stream);
  void copy_to_host_async(void* dst, std::size_t bytes, Stream& stream) const;

 private:
  void* ptr_ = nullptr;
  std::size_t size_bytes_ = 0;
  int device_ = -1;
};

}  // namespace placebench::kernels
