// Stream and DeviceBuffer on the CUDA runtime. Host code (built by the host compiler). Every call runs
// with the object's device current and restores the caller's device afterwards.
#include "placebench/kernels/device_buffer.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "cuda_check.h"
#include "device_guard.h"

namespace placebench::kernels {

bool cuda_backend_built() noexcept { return true; }

// --- Stream -----------------------------------------------------------------------------------------

Stream::Stream(int device) : device_(device) {
  detail::DeviceGuard guard(device);
  cudaStream_t stream = nullptr;
  PB_CUDA_CALL(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = stream;
}

Stream::~Stream() {
  if (stream_ == nullptr) return;
  detail::DeviceGuard guard(device_, detail::DeviceGuard::kNoThrow);
  PB_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(stream_));
}

Stream::Stream(Stream&& other) noexcept
    : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));
    device_ = other.device_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() {
  if (stream_ == nullptr) throw std::logic_error("Stream::synchronize on a moved-from stream");
  PB_CUDA_CALL(cudaStreamSynchronize(stream_));
}

// --- DeviceBuffer -----------------------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(std::size_t size_bytes, int device) : device_(device) {
  if (size_bytes == 0) return;
  detail::DeviceGuard guard(device);
  PB_CUDA_CALL(cudaMalloc(&ptr_, size_bytes));
  size_bytes_ = size_bytes;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ == nullptr) return;
  detail::DeviceGuard guard(device_, detail::DeviceGuard::kNoThrow);
  PB_CUDA_CALL_NOEXCEPT(cudaFree(ptr_));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)),
      size_bytes_(std::exchange(other.size_bytes_, 0)),
      device_(other.device_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    ptr_ = std::exchange(other.ptr_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
    device_ = other.device_;
  }
  return *this;
}

namespace {
void check_copy_size(const char* what, std::size_t bytes, std::size_t size_bytes) {
  if (bytes > size_bytes) {
    throw std::out_of_range(std::string("DeviceBuffer::") + what + ": " + std::to_string(bytes) +
                            " bytes do not fit in a buffer of " + std::to_string(size_bytes) + " bytes");
  }
}
}  // namespace

void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes) {
  check_copy_size("copy_from_host", bytes, size_bytes_);
  if (bytes == 0) return;
  Stream own(device_);  // never the legacy default stream, which would race the non-blocking streams
  copy_from_host_async(src, bytes, own);
  own.synchronize();
}

void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes) const {
  check_copy_size("copy_to_host", bytes, size_bytes_);
  if (bytes == 0) return;
  Stream own(device_);  // as copy_from_host
  copy_to_host_async(dst, bytes, own);
  own.synchronize();
}

void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, Stream& stream) {
  check_copy_size("copy_from_host_async", bytes, size_bytes_);
  if (bytes == 0) return;
  detail::DeviceGuard guard(device_);
  PB_CUDA_CALL(cudaMemcpyAsync(ptr_, src, bytes, cudaMemcpyHostToDevice, stream.native_handle()));
}

void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, Stream& stream) const {
  check_copy_size("copy_to_host_async", bytes, size_bytes_);
  if (bytes == 0) return;
  detail::DeviceGuard guard(device_);
  PB_CUDA_CALL(cudaMemcpyAsync(dst, ptr_, bytes, cudaMemcpyDeviceToHost, stream.native_handle()));
}

}  // namespace placebench::kernels
