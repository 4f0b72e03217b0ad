// Host side of the kernel launches: argument checks, launch shapes, the checksum's result slot and the
// device calibration. The kernels themselves are in the .cu files next to this one.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda_check.h"
#include "device_guard.h"
#include "launch_kernels.h"
#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/memory_kernels.h"

namespace placebench::kernels {

namespace {

// Enough resident blocks to hide latency (8 per SM); a grid-stride loop covers the rest of the work.
detail::LaunchShape grid_stride_shape(std::size_t work_items, int device) {
  int sm_count = 0;
  PB_CUDA_CALL(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  const std::size_t max_blocks = static_cast<std::size_t>(std::max(sm_count, 1)) * 8;
  const std::size_t wanted = (work_items + detail::kBlockThreads - 1) / detail::kBlockThreads;
  return {static_cast<unsigned>(std::clamp<std::size_t>(wanted, 1, max_blocks)), detail::kBlockThreads};
}

void check_buffer(const char* function, const char* name, const DeviceBuffer& buffer, std::size_t bytes,
                  const Stream& stream) {
  if (bytes > buffer.size_bytes()) {
    throw std::out_of_range(std::string(function) + ": " + name + " holds " +
                            std::to_string(buffer.size_bytes()) + " bytes, " + std::to_string(bytes) +
                            " are needed");
  }
  if (buffer.device() != stream.device()) {
    throw std::invalid_argument(std::string(function) + ": " + name + " is on device " +
                                std::to_string(buffer.device()) + " but the stream is on device " +
                                std::to_string(stream.device()));
  }
  if (stream.native_handle() == nullptr) {
    throw std::logic_error(std::string(function) + ": the stream was moved from");
  }
}

}  // namespace

// --- batch checksum ---------------------------------------------------------------------------------

void enqueue_batch_checksum(const DeviceBuffer& data, std::size_t bytes, DeviceBuffer& sum_slot,
                            Stream& stream) {
  check_buffer("enqueue_batch_checksum", "data", data, bytes, stream);
  check_buffer("enqueue_batch_checksum", "sum_slot", sum_slot, sizeof(unsigned long long), stream);
  detail::DeviceGuard guard(stream.device());
  PB_CUDA_CALL(cudaMemsetAsync(sum_slot.data(), 0, sizeof(unsigned long long), stream.native_handle()));
  if (bytes == 0) return;
  PB_CUDA_CALL(detail::enqueue_batch_checksum_kernel(data.data(), bytes,
                                                     sum_slot.data_as<unsigned long long>(),
                                                     grid_stride_shape(bytes / 16, stream.device()),
                                                     stream.native_handle()));
}

std::uint64_t launch_batch_checksum(const DeviceBuffer& data, std::size_t bytes, Stream& stream) {
  check_buffer("launch_batch_checksum", "data", data, bytes, stream);
  detail::DeviceGuard guard(stream.device());
  cudaStream_t s = stream.native_handle();
  // A stream-ordered slot: after the first call the pool serves it without a device synchronisation.
  void* slot = nullptr;
  PB_CUDA_CALL(cudaMallocAsync(&slot, sizeof(unsigned long long), s));
  unsigned long long sum = 0;
  cudaError_t err = cudaMemsetAsync(slot, 0, sizeof sum, s);
  if (err == cudaSuccess && bytes > 0) {
    err = detail::enqueue_batch_checksum_kernel(data.data(), bytes, static_cast<unsigned long long*>(slot),
                                                grid_stride_shape(bytes / 16, stream.device()), s);
  }
  if (err == cudaSuccess) err = cudaMemcpyAsync(&sum, slot, sizeof sum, cudaMemcpyDeviceToHost, s);
  PB_CUDA_CALL_NOEXCEPT(cudaFreeAsync(slot, s));
  PB_CUDA_CALL(err);
  PB_CUDA_CALL(cudaStreamSynchronize(s));
  return batch_checksum_finalize(sum, bytes);
}

// --- compute ----------------------------------------------------------------------------------------

void launch_compute(DeviceBuffer& data, std::size_t elements, std::uint32_t iterations, Stream& stream) {
  check_buffer("launch_compute", "data", data, elements * sizeof(std::uint32_t), stream);
  if (elements == 0) return;
  detail::DeviceGuard guard(stream.device());
  PB_CUDA_CALL(detail::enqueue_compute_kernel(data.data_as<std::uint32_t>(), elements, iterations,
                                              grid_stride_shape(elements, stream.device()),
                                              stream.native_handle()));
}

double calibrate_device_iterations_per_ns(DeviceBuffer& scratch, std::size_t elements, Stream& stream,
                                          std::chrono::nanoseconds min_duration) {
  if (elements == 0) throw std::invalid_argument("calibrate_device_iterations_per_ns: elements must be > 0");
  check_buffer("calibrate_device_iterations_per_ns", "scratch", scratch, elements * sizeof(std::uint32_t),
               stream);
  std::uint32_t iterations = 64;
  launch_compute(scratch, elements, iterations, stream);  // warm-up: module load, clocks up
  detail::DeviceGuard guard(stream.device());
  cudaStream_t s = stream.native_handle();
  cudaEvent_t start = nullptr, stop = nullptr;
  PB_CUDA_CALL(cudaEventCreate(&start));
  cudaError_t err = cudaEventCreate(&stop);
  double rate = 0;
  float elapsed_ms = 0;
  while (err == cudaSuccess) {
    if ((err = cudaEventRecord(start, s)) != cudaSuccess) break;
    err = detail::enqueue_compute_kernel(scratch.data_as<std::uint32_t>(), elements, iterations,
                                         grid_stride_shape(elements, stream.device()), s);
    if (err != cudaSuccess || (err = cudaEventRecord(stop, s)) != cudaSuccess) break;
    if ((err = cudaEventSynchronize(stop)) != cudaSuccess) break;
    if ((err = cudaEventElapsedTime(&elapsed_ms, start, stop)) != cudaSuccess) break;
    const double elapsed_ns = static_cast<double>(elapsed_ms) * 1e6;
    if (elapsed_ns >= static_cast<double>(min_duration.count()) || iterations >= (1u << 30)) {
      rate = static_cast<double>(elements) * iterations / std::max(elapsed_ns, 1.0);
      break;
    }
    iterations *= 2;
  }
  if (stop != nullptr) PB_CUDA_CALL_NOEXCEPT(cudaEventDestroy(stop));
  PB_CUDA_CALL_NOEXCEPT(cudaEventDestroy(start));
  PB_CUDA_CALL(err);
  return rate;
}

// --- triad ------------------------------------------------------------------------------------------

void launch_triad(DeviceBuffer& a, const DeviceBuffer& b, const DeviceBuffer& c, float scalar,
                  std::size_t elements, Stream& stream) {
  const std::size_t bytes = elements * sizeof(float);
  check_buffer("launch_triad", "a", a, bytes, stream);
  check_buffer("launch_triad", "b", b, bytes, stream);
  check_buffer("launch_triad", "c", c, bytes, stream);
  if (elements == 0) return;
  detail::DeviceGuard guard(stream.device());
  PB_CUDA_CALL(detail::enqueue_triad_kernel(a.data_as<float>(), b.data_as<float>(), c.data_as<float>(), scalar,
                                            elements, grid_stride_shape(elements, stream.device()),
                                            stream.native_handle()));
}

}  // namespace placebench::kernels
