// CUDA-backend step consumer (see pipeline/consumer.h). Built in every configuration: without the CUDA
// backend the kernels interface throws CudaBackendNotBuilt from the constructor.
#include "placebench/hostpipe/pipeline/consumer.h"
#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/device_buffer.h"
#include "placebench/kernels/staging_copy.h"

namespace placebench::hostpipe {
namespace {

// Enough elements to fill the GPU (the per-step work is set by the iterations, not by this size).
constexpr std::size_t kDeviceComputeElements = std::size_t{1} << 20;

class CudaConsumer : public StepConsumer {
 public:
  explicit CudaConsumer(const CudaConsumerParams& p)
      : stream_(p.gpu), batch_(p.batch_bytes, p.gpu), sum_slot_(sizeof(std::uint64_t), p.gpu),
        work_(kDeviceComputeElements * sizeof(std::uint32_t), p.gpu), ring_(p.ring) {
    if (p.step_compute.count() > 0) {
      double rate = kernels::calibrate_device_iterations_per_ns(work_, kDeviceComputeElements, stream_);
      iterations_ = kernels::iterations_for_duration(rate, kDeviceComputeElements, p.step_compute);
    }
    if (ring_) {
      kernels::host_register(ring_, p.ring_bytes);
      pinned_ = p.ring_bytes;
    }
  }
  ~CudaConsumer() override {
    if (pinned_) kernels::host_unregister(ring_);
  }
  CudaConsumer(const CudaConsumer&) = delete;
  CudaConsumer& operator=(const CudaConsumer&) = delete;

  void copy_in(const std::byte* batch, std::size_t bytes) override {
    batch_.copy_from_host_async(batch, bytes, stream_);
    stream_.synchronize();
  }
  std::uint64_t compute(std::size_t bytes) override {
    kernels::enqueue_batch_checksum(batch_, bytes, sum_slot_, stream_);
    if (iterations_ > 0) kernels::launch_compute(work_, kDeviceComputeElements, iterations_, stream_);
    std::uint64_t sum = 0;
    sum_slot_.copy_to_host_async(&sum, sizeof sum, stream_);
    stream_.synchronize();
    return kernels::batch_checksum_finalize(sum, bytes);
  }
  std::size_t pinned_bytes() const override { return pinned_; }

 private:
  kernels::Stream stream_;
  kernels::DeviceBuffer batch_, sum_slot_, work_;
  void* ring_;
  std::size_t pinned_ = 0;
  std::uint32_t iterations_ = 0;
};

}  // namespace

std::unique_ptr<StepConsumer> make_cuda_consumer(const CudaConsumerParams& params) {
  return std::make_unique<CudaConsumer>(params);
}

}  // namespace placebench::hostpipe
