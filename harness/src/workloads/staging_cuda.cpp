// CUDA backend endpoints: device memory on the GPU, host memory of the configured kind on the arm's
// node. Data check: the device checksums what arrived (h2d); the host checks the pattern (d2h).
#include <algorithm>
#include <memory>
#include <vector>

#include "placebench/hostpipe/host_copy.h"
#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/staging_copy.h"
#include "staging_endpoints.h"

namespace placebench::harness::detail {
namespace {

// Host memory of one kind; registered/pinned memory is unregistered on destruction.
class HostSide {
 public:
  HostSide(HostMemory kind, PlacedWorker& placed, std::size_t bytes) : placed_(placed) {
    if (kind == HostMemory::kHostAlloc) {
      alloc_ = kernels::host_alloc_pinned(bytes);
      // Touch from the bound thread, then record where the runtime's allocation really landed.
      hostpipe::fill_pattern(alloc_, bytes, 0);
      placed.record.pages = hostpipe::page_node_histogram(alloc_, bytes);
      placed.record.problems.push_back("hostalloc: cudaHostAlloc decides placement; pages show where it landed");
      placed.record.pinned = true;
    } else if (kind != HostMemory::kPageable) {
      kernels::host_register(placed.buffer.data(), placed.buffer.size());
      registered_ = true;
      placed.record.pinned = true;
    }
  }
  ~HostSide() {
    if (alloc_) kernels::host_free_pinned(alloc_);
    if (registered_) kernels::host_unregister(placed_.buffer.data());
  }
  void* data() { return alloc_ ? alloc_ : placed_.buffer.data(); }

 private:
  PlacedWorker& placed_;
  void* alloc_ = nullptr;
  bool registered_ = false;
};

class CudaEndpoints : public StagingEndpoints {
 public:
  CudaEndpoints(const StagingConfig& cfg, int gpu, PlacedWorker& placed, PlacedWorker* second, std::size_t max_bytes)
      : dir_(cfg.direction), stream_(gpu), stream2_(gpu), device_(max_bytes, gpu), host_(cfg.memory, placed, max_bytes) {
    if (second) {
      device2_ = kernels::DeviceBuffer(max_bytes, gpu);
      host2_ = std::make_unique<HostSide>(cfg.memory, *second, max_bytes);
    }
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    if (dir_ == Direction::kD2H) {
      hostpipe::fill_pattern(host_.data(), bytes, seed);
      device_.copy_from_host(host_.data(), bytes);
      std::fill_n(static_cast<unsigned char*>(host_.data()), bytes, 0);
      return;
    }
    hostpipe::fill_pattern(host_.data(), bytes, seed);
    if (host2_) {
      hostpipe::fill_pattern(host2_->data(), bytes, seed + 1);
      device2_.copy_from_host(host2_->data(), bytes);
      std::fill_n(static_cast<unsigned char*>(host2_->data()), bytes, 0);
    }
  }

  double batch(std::size_t bytes, int copies) override {
    if (dir_ == Direction::kBidir)
      return kernels::timed_copy_batch_bidir(device_, host_.data(), device2_, host2_->data(), bytes, copies, stream_, stream2_);
    auto kind = dir_ == Direction::kH2D ? kernels::CopyKind::kHostToDevice : kernels::CopyKind::kDeviceToHost;
    return kernels::timed_copy_batch(device_, host_.data(), bytes, copies, kind, stream_);
  }

  std::optional<std::size_t> check(std::size_t bytes, std::uint64_t seed) override {
    if (dir_ == Direction::kD2H) return hostpipe::find_pattern_mismatch(host_.data(), bytes, seed);
    if (kernels::launch_batch_checksum(device_, bytes, stream_) != kernels::batch_checksum_cpu(host_.data(), bytes))
      return 0;  // the device's checksum differs: offset unknown, report the batch
    if (host2_) return hostpipe::find_pattern_mismatch(host2_->data(), bytes, seed + 1);
    return std::nullopt;
  }

 private:
  Direction dir_;
  kernels::Stream stream_, stream2_;
  kernels::DeviceBuffer device_, device2_;
  HostSide host_;
  std::unique_ptr<HostSide> host2_;
};

}  // namespace

std::unique_ptr<StagingEndpoints> make_cuda_endpoints(const StagingConfig& cfg, int gpu, PlacedWorker& placed,
                                                      PlacedWorker* second, std::size_t max_bytes) {
  return std::make_unique<CudaEndpoints>(cfg, gpu, placed, second, max_bytes);
}

}  // namespace placebench::harness::detail
