// Decode stages: the CPU work a dataloader worker does to turn samples of an in-memory dataset into a
// batch in a staging buffer. Two stages:
//   synthetic  copies each sample from the dataset, then applies a calibrated amount of integer work
//              per byte (kernels::compute_cpu rounds over the sample's words), for exact control;
//   jpeg       decodes JPEGs (libjpeg-turbo) that the stage encoded at start-up, then crops a window at
//              a per-sample pseudo-random offset, flips every other sample and normalises to float CHW
//              with the ImageNet mean and deviation, as a torchvision training transform does.
// Batch b holds samples (b * samples + s) mod dataset_samples, s = 0..samples-1: deterministic, so a
// batch's content depends only on its index.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "placebench/hostpipe/numa_buffer.h"

namespace placebench::hostpipe {

struct BatchShape {
  int samples = 1;                 // samples per batch
  std::size_t sample_bytes = 0;    // bytes each sample occupies in the batch
  int width = 0, height = 0;       // image size of a sample (jpeg; 0 when the batch is given in bytes)
  std::size_t batch_bytes() const { return sample_bytes * static_cast<std::size_t>(samples); }
};

// Bytes of one decoded sample: width x height x 3 channels of float.
constexpr std::size_t image_sample_bytes(int width, int height) {
  return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3 * sizeof(float);
}

// One worker's instance of a stage (its own decoder handle and scratch, allocated on first use by the
// worker's own, bound, thread).
class StageWorker {
 public:
  virtual ~StageWorker() = default;
  // Writes batch `batch` (shape().batch_bytes() bytes) at `out`.
  virtual void produce(std::uint64_t batch, std::byte* out) = 0;
};

class DecodeStage {
 public:
  virtual ~DecodeStage() = default;
  virtual std::string name() const = 0;
  virtual const BatchShape& shape() const = 0;
  // The in-memory dataset (samples or encoded images), placed on the stage's memory nodes.
  virtual const NumaBuffer& dataset() const = 0;
  virtual std::size_t dataset_bytes() const = 0;
  virtual std::unique_ptr<StageWorker> make_worker() const = 0;
};

struct SyntheticStageParams {
  BatchShape shape;
  int dataset_samples = 64;
  double cpu_work_ns_per_kib = 0;         // work per KiB of sample (at the calibrated rate)
  double element_iterations_per_ns = 1;   // calibrate_iterations_per_cpu_ns() of this machine
  std::vector<int> mem_nodes;             // where the dataset lives (empty: default policy)
  std::uint64_t seed = 1;
};
std::unique_ptr<DecodeStage> make_synthetic_stage(const SyntheticStageParams& params);

struct JpegStageParams {
  BatchShape shape;             // width x height: the crop each sample becomes; sample_bytes = image_sample_bytes
  int dataset_samples = 64;     // distinct images, encoded at (width + width/8) x (height + height/8)
  int quality = 90;
  std::vector<int> mem_nodes;
  std::uint64_t seed = 1;
};
// Throws std::runtime_error when libjpeg-turbo fails to encode.
std::unique_ptr<DecodeStage> make_jpeg_stage(const JpegStageParams& params);

}  // namespace placebench::hostpipe
