// Host-backend step consumer (see pipeline/consumer.h).
#include <cstring>
#include <vector>

#include "placebench/hostpipe/numa_buffer.h"
#include "placebench/hostpipe/pipeline/consumer.h"
#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"

namespace placebench::hostpipe {
namespace {

class HostConsumer : public StepConsumer {
 public:
  explicit HostConsumer(const HostConsumerParams& p)
      : device_(p.batch_bytes, p.device_nodes), work_(kernels::kDefaultCalibrationElements, 1u) {
    device_.touch();
    iterations_ = p.step_compute.count() > 0
                      ? kernels::iterations_for_duration(p.element_iterations_per_ns, work_.size(), p.step_compute)
                      : 0;
  }
  void copy_in(const std::byte* batch, std::size_t bytes) override {
    std::memcpy(device_.data(), batch, bytes);
    asm volatile("" : : "r"(device_.data()) : "memory");
  }
  std::uint64_t compute(std::size_t bytes) override {
    std::uint64_t sum = kernels::batch_checksum_cpu(device_.data(), bytes);
    if (iterations_ > 0) kernels::compute_cpu(work_.data(), work_.size(), iterations_);
    return sum;
  }

 private:
  NumaBuffer device_;
  std::vector<std::uint32_t> work_;
  std::uint32_t iterations_ = 0;
};

}  // namespace

std::unique_ptr<StepConsumer> make_host_consumer(const HostConsumerParams& params) {
  return std::make_unique<HostConsumer>(params);
}

}  // namespace placebench::hostpipe
