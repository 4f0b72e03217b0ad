// Host backend endpoints: the "device buffer" is host memory bound to the device's NUMA node.
// bidir runs the d2h half on a second thread bound to worker 1's CPUs, started together with the first.
#include <algorithm>
#include <thread>

#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/host_copy.h"
#include "staging_endpoints.h"

namespace placebench::harness::detail {
namespace {

class HostEndpoints : public StagingEndpoints {
 public:
  HostEndpoints(const StagingConfig& cfg, const ArmPlan& plan, PlacedWorker& placed, PlacedWorker* second,
                std::size_t max_bytes)
      : dir_(cfg.direction), host_(placed.buffer), second_(second) {
    device_ = hostpipe::NumaBuffer(max_bytes, {plan.device_numa});
    device_.touch();
    if (second_) {
      device2_ = hostpipe::NumaBuffer(max_bytes, {plan.device_numa});
      device2_.touch();
      second_cpus_ = second_->record.requested_cpus;
    }
  }

  void prepare(std::size_t bytes, std::uint64_t seed) override {
    if (dir_ != Direction::kD2H) hostpipe::fill_pattern(host_.data(), bytes, seed);
    if (dir_ == Direction::kD2H) hostpipe::fill_pattern(device_.data(), bytes, seed);
    if (second_) hostpipe::fill_pattern(device2_.data(), bytes, seed + 1);
  }

  double batch(std::size_t bytes, int copies) override {
    if (dir_ == Direction::kH2D) return hostpipe::timed_host_copies(device_.data(), host_.data(), bytes, copies);
    if (dir_ == Direction::kD2H) return hostpipe::timed_host_copies(host_.data(), device_.data(), bytes, copies);
    double other = 0;
    std::thread d2h([&] {
      if (!second_cpus_.empty()) hostpipe::bind_current_thread(second_cpus_);
      other = hostpipe::timed_host_copies(second_->buffer.data(), device2_.data(), bytes, copies);
    });
    double mine = hostpipe::timed_host_copies(device_.data(), host_.data(), bytes, copies);
    d2h.join();
    return std::max(mine, other);
  }

  std::optional<std::size_t> check(std::size_t bytes, std::uint64_t seed) override {
    if (dir_ == Direction::kD2H) return hostpipe::find_pattern_mismatch(host_.data(), bytes, seed);
    if (auto bad = hostpipe::find_pattern_mismatch(device_.data(), bytes, seed)) return bad;
    if (second_) return hostpipe::find_pattern_mismatch(second_->buffer.data(), bytes, seed + 1);
    return std::nullopt;
  }

 private:
  Direction dir_;
  hostpipe::NumaBuffer& host_;
  PlacedWorker* second_;
  hostpipe::NumaBuffer device_, device2_;
  std::vector<int> second_cpus_;
};

}  // namespace

std::unique_ptr<StagingEndpoints> make_host_endpoints(const StagingConfig& cfg, const ArmPlan& plan, PlacedWorker& placed,
                                                      PlacedWorker* second, std::size_t max_bytes) {
  return std::make_unique<HostEndpoints>(cfg, plan, placed, second, max_bytes);
}

}  // namespace placebench::harness::detail
