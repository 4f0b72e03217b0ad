// The consumer of a training step: copies the batch to the device, then runs the consuming kernel (the
// batch checksum of what arrived, compared with the producer's) and the compute kernel for the
// configured step length. Backends:
//   host  the "device" is host memory bound to the device's NUMA node: memcpy, then
//         kernels::batch_checksum_cpu and kernels::compute_cpu on the consumer's thread;
//   cuda  cudaMemcpyAsync from the (cudaHostRegister'ed) ring into device memory, then the checksum and
//         compute kernels on one stream; each phase waits for the stream, as a synchronous loop does.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace placebench::hostpipe {

class StepConsumer {
 public:
  virtual ~StepConsumer() = default;
  // Copies `bytes` at `batch` to the device; on return the host memory may be reused.
  virtual void copy_in(const std::byte* batch, std::size_t bytes) = 0;
  // Consuming kernel + compute step on what arrived; returns the batch checksum computed there.
  virtual std::uint64_t compute(std::size_t bytes) = 0;
  // Host bytes page-locked for the device (cudaHostRegister); 0 for the host backend.
  virtual std::size_t pinned_bytes() const { return 0; }
};

struct HostConsumerParams {
  std::vector<int> device_nodes;           // where the "device" buffer lives
  std::size_t batch_bytes = 0;
  std::chrono::nanoseconds step_compute{0};
  double element_iterations_per_ns = 1;    // calibrate_iterations_per_cpu_ns()
};
std::unique_ptr<StepConsumer> make_host_consumer(const HostConsumerParams& params);

struct CudaConsumerParams {
  int gpu = 0;
  std::size_t batch_bytes = 0;
  std::chrono::nanoseconds step_compute{0};
  void* ring = nullptr;                    // registered with cudaHostRegister for the consumer's lifetime
  std::size_t ring_bytes = 0;
};
// Throws kernels::CudaError / CudaBackendNotBuilt.
std::unique_ptr<StepConsumer> make_cuda_consumer(const CudaConsumerParams& params);

}  // namespace placebench::hostpipe
