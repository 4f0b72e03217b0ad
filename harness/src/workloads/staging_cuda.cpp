// CUDA backend endpoints: device memory on the GPU, host memory of the configured kind on the arm's
// node. Data check: the device checksums what arrived (h2d); the host checks the pattern (d2h).
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <vector>

#include "placebench/hostpipe/host_copy.h"
#include "placebench/hostpipe/numa_buffer.h"
#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/staging_copy.h"
#include "staging_endpoints.h"

namespace placebench::harness::detail {
namespace {

// cudaHostAlloc decides where its pages go: the record describes that memory (the arm's thread binding
// stays), not a NumaBuffer that is never copied from.
void record_runtime_memory(PlacementRecord& rec, const void* data, std::size_t bytes) {
  hostpipe::MemPolicy mp = hostpipe::query_mempolicy(data);
  rec.mem_policy = mp.mode;
  rec.mem_policy_nodes = mp.nodes;
  rec.pages = hostpipe::page_node_histogram(data, bytes);
  std::size_t total = 0, wanted = 0;
  for (const auto& [node, count] : rec.pages) {
    total += count;
    bool on_requested = rec.requested_mems.empty() ? node >= 0
                                                   : std::count(rec.requested_mems.begin(), rec.requested_mems.end(), node) > 0;
    if (on_requested) wanted += count;
  }
  rec.requested_pages_pct = total ? 100.0 * static_cast<double>(wanted) / static_cast<double>(total) : 0.0;
  if (wanted == total) return;
  rec.problems.push_back(fmt::format("hostalloc: cudaHostAlloc put {:.2f}% of {} pages on the requested node(s)",
                                     rec.requested_pages_pct, total));
  rec.status = wanted ? "partial" : "failed";
}

// Host memory of one kind; registered/pinned memory is unregistered on destruction. The record is
// taken of the memory really copied from, after it is page-locked.
class HostSide {
 public:
  HostSide(HostMemory kind, PlacedWorker& placed, std::size_t bytes) : placed_(placed) {
    if (kind == HostMemory::kHostAlloc) {
      alloc_ = kernels::host_alloc_pinned(bytes);
      hostpipe::fill_pattern(alloc_, bytes, 0);  // touched from the bound thread
      record_runtime_memory(placed.record, alloc_, bytes);
      placed.record.pinned = true;
    } else if (kind != HostMemory::kPageable) {
      kernels::host_register(placed.buffer.data(), placed.buffer.size());
      registered_ = true;
      verify_placement(placed.record, placed.buffer);  // the pages as registered, not as first touched
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
  CudaEndpoints(const StagingConfig& cfg, int gpu, PlacedWorker& placed, PlacedWorker* second, std::size_t max_bytes,
                bool fresh)
      : context_(fresh_context(gpu, fresh)),
        dir_(cfg.direction),
        timing_(kernels::copy_timing_for(cfg.memory != HostMemory::kPageable)),
        stream_(gpu),
        stream2_(gpu),
        device_(max_bytes, gpu),
        host_(cfg.memory, placed, max_bytes) {
    if (second) {
      device2_ = kernels::DeviceBuffer(max_bytes, gpu);
      host2_ = std::make_unique<HostSide>(cfg.memory, *second, max_bytes);
    }
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    if (dir_ == Direction::kD2H) {
      hostpipe::fill_pattern(host_.data(), bytes, seed);
      device_.copy_from_host_async(host_.data(), bytes, stream_);  // on the object's own stream
      stream_.synchronize();
      std::fill_n(static_cast<unsigned char*>(host_.data()), bytes, 0);
      return;
    }
    hostpipe::fill_pattern(host_.data(), bytes, seed);
    if (host2_) {
      hostpipe::fill_pattern(host2_->data(), bytes, seed + 1);
      device2_.copy_from_host_async(host2_->data(), bytes, stream2_);
      stream2_.synchronize();
      std::fill_n(static_cast<unsigned char*>(host2_->data()), bytes, 0);
    }
  }

  double batch(std::size_t bytes, int copies) override {
    if (dir_ == Direction::kBidir)
      return kernels::timed_copy_batch_bidir(device_, host_.data(), device2_, host2_->data(), bytes, copies, stream_, stream2_,
                                             timing_);
    auto kind = dir_ == Direction::kH2D ? kernels::CopyKind::kHostToDevice : kernels::CopyKind::kDeviceToHost;
    return kernels::timed_copy_batch(device_, host_.data(), bytes, copies, kind, stream_, timing_);
  }

  std::optional<std::size_t> check(std::size_t bytes, std::uint64_t seed) override {
    if (dir_ == Direction::kD2H) return hostpipe::find_pattern_mismatch(host_.data(), bytes, seed);
    if (kernels::launch_batch_checksum(device_, bytes, stream_) != kernels::batch_checksum_cpu(host_.data(), bytes))
      return 0;  // the device's checksum differs: offset unknown, report the batch
    if (host2_) return hostpipe::find_pattern_mismatch(host2_->data(), bytes, seed + 1);
    return std::nullopt;
  }

 private:
  static int fresh_context(int gpu, bool fresh) {
    if (fresh) kernels::fresh_device_context(gpu);  // on this (bound) thread: its staging buffers on its node
    return 0;
  }

  int context_;
  Direction dir_;
  kernels::CopyTiming timing_;  // pageable: host timer, no hold kernel (copy_timing.h)
  kernels::Stream stream_, stream2_;
  kernels::DeviceBuffer device_, device2_;
  HostSide host_;
  std::unique_ptr<HostSide> host2_;
};

}  // namespace

std::unique_ptr<StagingEndpoints> make_cuda_endpoints(const StagingConfig& cfg, int gpu, PlacedWorker& placed,
                                                      PlacedWorker* second, std::size_t max_bytes, bool fresh_context) {
  return std::make_unique<CudaEndpoints>(cfg, gpu, placed, second, max_bytes, fresh_context);
}

}  // namespace placebench::harness::detail
