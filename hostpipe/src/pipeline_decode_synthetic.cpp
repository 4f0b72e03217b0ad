// The synthetic decode stage (see pipeline/decode.h): sample copy + calibrated integer work per byte.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "placebench/hostpipe/host_copy.h"
#include "placebench/hostpipe/pipeline/decode.h"
#include "placebench/kernels/compute.h"

namespace placebench::hostpipe {
namespace {

class SyntheticStage;

class SyntheticWorker : public StageWorker {
 public:
  explicit SyntheticWorker(const SyntheticStage& stage) : stage_(stage) {}
  void produce(std::uint64_t batch, std::byte* out) override;

 private:
  const SyntheticStage& stage_;
};

class SyntheticStage : public DecodeStage {
 public:
  explicit SyntheticStage(const SyntheticStageParams& p) : p_(p) {
    if (p.shape.samples <= 0 || p.shape.sample_bytes == 0 || p.dataset_samples <= 0)
      throw std::invalid_argument("synthetic stage: samples, sample bytes and dataset samples must be positive");
    dataset_ = NumaBuffer(p.shape.sample_bytes * static_cast<std::size_t>(p.dataset_samples), p.mem_nodes);
    fill_pattern(dataset_.data(), dataset_.size(), p.seed);
    // Work per sample as element-iterations (one compute round on one 4-byte word), split into whole
    // rounds over all words plus one more round over a fraction of them, so the amount is exact.
    elements_ = p.shape.sample_bytes / sizeof(std::uint32_t);
    double work = p.cpu_work_ns_per_kib * static_cast<double>(p.shape.sample_bytes) / 1024.0 * p.element_iterations_per_ns;
    if (elements_ > 0 && work > 0) {
      double per_element = work / static_cast<double>(elements_);
      rounds_ = static_cast<std::uint32_t>(std::min(std::floor(per_element), 4.0e9));
      extra_elements_ = static_cast<std::size_t>(std::llround((per_element - rounds_) * static_cast<double>(elements_)));
      extra_elements_ = std::min(extra_elements_, elements_);
    }
  }
  std::string name() const override { return "synthetic"; }
  const BatchShape& shape() const override { return p_.shape; }
  const NumaBuffer& dataset() const override { return dataset_; }
  std::size_t dataset_bytes() const override { return dataset_.size(); }
  std::unique_ptr<StageWorker> make_worker() const override { return std::make_unique<SyntheticWorker>(*this); }

  void produce_sample(std::uint64_t sample, std::byte* out) const {
    std::size_t bytes = p_.shape.sample_bytes;
    std::memcpy(out, static_cast<const std::byte*>(dataset_.data()) + (sample % static_cast<std::uint64_t>(p_.dataset_samples)) * bytes,
                bytes);
    if (rounds_ == 0 && extra_elements_ == 0) return;
    // Staging slots and samples are 4-byte aligned when sample_bytes is; otherwise work on a copy.
    auto* words = reinterpret_cast<std::uint32_t*>(out);
    if (reinterpret_cast<std::uintptr_t>(out) % alignof(std::uint32_t) != 0) {
      std::vector<std::uint32_t> tmp(elements_);
      std::memcpy(tmp.data(), out, elements_ * sizeof(std::uint32_t));
      work(tmp.data());
      std::memcpy(out, tmp.data(), elements_ * sizeof(std::uint32_t));
    } else {
      work(words);
    }
  }

 private:
  void work(std::uint32_t* words) const {
    if (extra_elements_ > 0) kernels::compute_cpu(words, extra_elements_, rounds_ + 1);
    if (rounds_ > 0) kernels::compute_cpu(words + extra_elements_, elements_ - extra_elements_, rounds_);
  }

  SyntheticStageParams p_;
  NumaBuffer dataset_;
  std::size_t elements_ = 0, extra_elements_ = 0;
  std::uint32_t rounds_ = 0;
};

void SyntheticWorker::produce(std::uint64_t batch, std::byte* out) {
  const BatchShape& shape = stage_.shape();
  for (int s = 0; s < shape.samples; ++s)
    stage_.produce_sample(batch * static_cast<std::uint64_t>(shape.samples) + static_cast<std::uint64_t>(s),
                          out + static_cast<std::size_t>(s) * shape.sample_bytes);
}

}  // namespace

std::unique_ptr<DecodeStage> make_synthetic_stage(const SyntheticStageParams& params) {
  return std::make_unique<SyntheticStage>(params);
}

}  // namespace placebench::hostpipe
