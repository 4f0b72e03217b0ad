// The CUDA backend's interface in builds without it: empty objects are fine, everything that would touch
// a device throws CudaBackendNotBuilt naming the operation.
#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/device_buffer.h"
#include "placebench/kernels/memory_kernels.h"

namespace placebench::kernels {

bool cuda_backend_built() noexcept { return false; }

Stream::Stream(int device) : device_(device) { throw CudaBackendNotBuilt("creating a CUDA stream"); }
Stream::~Stream() = default;
Stream::Stream(Stream&& other) noexcept : device_(other.device_) {}
Stream& Stream::operator=(Stream&& other) noexcept {
  device_ = other.device_;
  return *this;
}
void Stream::synchronize() { throw CudaBackendNotBuilt("Stream::synchronize"); }

DeviceBuffer::DeviceBuffer(std::size_t size_bytes, int device) : device_(device) {
  if (size_bytes > 0) throw CudaBackendNotBuilt("allocating device memory");
}
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept : device_(other.device_) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  device_ = other.device_;
  return *this;
}
void DeviceBuffer::copy_from_host(const void*, std::size_t) { throw CudaBackendNotBuilt("copy_from_host"); }
void DeviceBuffer::copy_to_host(void*, std::size_t) const { throw CudaBackendNotBuilt("copy_to_host"); }
void DeviceBuffer::copy_from_host_async(const void*, std::size_t, Stream&) {
  throw CudaBackendNotBuilt("copy_from_host_async");
}
void DeviceBuffer::copy_to_host_async(void*, std::size_t, Stream&) const {
  throw CudaBackendNotBuilt("copy_to_host_async");
}

std::uint64_t launch_batch_checksum(const DeviceBuffer&, std::size_t, Stream&) {
  throw CudaBackendNotBuilt("launch_batch_checksum");
}
void enqueue_batch_checksum(const DeviceBuffer&, std::size_t, DeviceBuffer&, Stream&) {
  throw CudaBackendNotBuilt("enqueue_batch_checksum");
}
void launch_compute(DeviceBuffer&, std::size_t, std::uint32_t, Stream&) {
  throw CudaBackendNotBuilt("launch_compute");
}
double calibrate_device_iterations_per_ns(DeviceBuffer&, std::size_t, Stream&, std::chrono::nanoseconds) {
  throw CudaBackendNotBuilt("calibrate_device_iterations_per_ns");
}
void launch_triad(DeviceBuffer&, const DeviceBuffer&, const DeviceBuffer&, float, std::size_t, Stream&) {
  throw CudaBackendNotBuilt("launch_triad");
}

}  // namespace placebench::kernels
