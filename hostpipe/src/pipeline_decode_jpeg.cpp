// The jpeg decode stage (see pipeline/decode.h): real libjpeg-turbo decoding of images encoded at
// start-up, then crop / flip / normalise to float CHW.
#include <turbojpeg.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "placebench/hostpipe/pipeline/decode.h"

namespace placebench::hostpipe {
namespace {

// ImageNet channel statistics, as torchvision's Normalize in the reference training recipes.
constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

// A coordinate, size or channel of an image (never negative) as an index.
constexpr std::size_t idx(int v) { return static_cast<std::size_t>(v); }

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct TjHandle {
  explicit TjHandle(tjhandle handle) : h(handle) {
    if (!h) throw std::runtime_error(std::string("libjpeg-turbo: cannot create a handle: ") + tjGetErrorStr());
  }
  ~TjHandle() { tjDestroy(h); }
  TjHandle(const TjHandle&) = delete;
  TjHandle& operator=(const TjHandle&) = delete;
  tjhandle h;
};

class JpegStage;

class JpegWorker : public StageWorker {
 public:
  explicit JpegWorker(const JpegStage& stage);
  void produce(std::uint64_t batch, std::byte* out) override;

 private:
  const JpegStage& stage_;
  TjHandle handle_{tjInitDecompress()};
  std::vector<unsigned char> rgb_;
};

class JpegStage : public DecodeStage {
 public:
  explicit JpegStage(const JpegStageParams& p) : p_(p) {
    if (p.shape.width <= 0 || p.shape.height <= 0 || p.shape.samples <= 0 || p.dataset_samples <= 0)
      throw std::invalid_argument("jpeg stage: image size, samples and dataset samples must be positive");
    p_.shape.sample_bytes = image_sample_bytes(p.shape.width, p.shape.height);
    src_w_ = p.shape.width + p.shape.width / 8;
    src_h_ = p.shape.height + p.shape.height / 8;
    encode_dataset();
  }
  std::string name() const override { return "jpeg"; }
  const BatchShape& shape() const override { return p_.shape; }
  const NumaBuffer& dataset() const override { return dataset_; }
  std::size_t dataset_bytes() const override { return encoded_bytes_; }
  std::unique_ptr<StageWorker> make_worker() const override { return std::make_unique<JpegWorker>(*this); }

  int src_width() const { return src_w_; }
  int src_height() const { return src_h_; }
  const unsigned char* image(std::uint64_t sample, unsigned long& size) const {
    std::size_t i = sample % offsets_.size();
    size = sizes_[i];
    return static_cast<const unsigned char*>(dataset_.data()) + offsets_[i];
  }
  std::uint64_t seed() const { return p_.seed; }

 private:
  // Smooth colour gradients with per-pixel noise: compresses like a photograph (neither flat nor noise).
  void encode_dataset() {
    TjHandle enc(tjInitCompress());
    std::vector<unsigned char> rgb(idx(src_w_) * idx(src_h_) * 3);
    std::vector<std::vector<unsigned char>> images;
    for (int i = 0; i < p_.dataset_samples; ++i) {
      std::uint64_t s = mix(p_.seed * 1000003u + static_cast<std::uint64_t>(i));
      for (int y = 0; y < src_h_; ++y)
        for (int x = 0; x < src_w_; ++x) {
          unsigned char* px = &rgb[(idx(y) * idx(src_w_) + idx(x)) * 3];
          std::uint64_t n = mix(s ^ (static_cast<std::uint64_t>(y) << 32 | static_cast<std::uint64_t>(x)));
          px[0] = static_cast<unsigned char>((idx(x * 255 / src_w_) + (s & 63) + (n & 15)) & 255);
          px[1] = static_cast<unsigned char>((idx(y * 255 / src_h_) + ((s >> 8) & 63) + ((n >> 8) & 15)) & 255);
          px[2] = static_cast<unsigned char>((idx((x + y) * 127 / (src_w_ + src_h_)) + ((s >> 16) & 127) + ((n >> 16) & 15)) & 255);
        }
      unsigned char* jpeg = nullptr;
      unsigned long size = 0;
      if (tjCompress2(enc.h, rgb.data(), src_w_, 0, src_h_, TJPF_RGB, &jpeg, &size, TJSAMP_420, p_.quality, 0) != 0)
        throw std::runtime_error(std::string("libjpeg-turbo: encoding image ") + std::to_string(i) + ": " + tjGetErrorStr2(enc.h));
      images.emplace_back(jpeg, jpeg + size);
      tjFree(jpeg);
    }
    std::size_t total = 0;
    for (const auto& im : images) {
      offsets_.push_back(total);
      sizes_.push_back(im.size());
      total += im.size();
    }
    encoded_bytes_ = total;
    dataset_ = NumaBuffer(total, p_.mem_nodes);
    for (std::size_t i = 0; i < images.size(); ++i)
      std::memcpy(static_cast<unsigned char*>(dataset_.data()) + offsets_[i], images[i].data(), images[i].size());
  }

  JpegStageParams p_;
  int src_w_ = 0, src_h_ = 0;
  NumaBuffer dataset_;
  std::size_t encoded_bytes_ = 0;
  std::vector<std::size_t> offsets_;
  std::vector<unsigned long> sizes_;
};

JpegWorker::JpegWorker(const JpegStage& stage) : stage_(stage) {
  rgb_.resize(idx(stage.src_width()) * idx(stage.src_height()) * 3);
}

void JpegWorker::produce(std::uint64_t batch, std::byte* out) {
  const BatchShape& shape = stage_.shape();
  const int sw = stage_.src_width(), sh = stage_.src_height(), w = shape.width, h = shape.height;
  for (int s = 0; s < shape.samples; ++s) {
    std::uint64_t sample = batch * static_cast<std::uint64_t>(shape.samples) + static_cast<std::uint64_t>(s);
    unsigned long size = 0;
    const unsigned char* jpeg = stage_.image(sample, size);
    if (tjDecompress2(handle_.h, jpeg, size, rgb_.data(), sw, 0, sh, TJPF_RGB, 0) != 0)
      throw std::runtime_error("libjpeg-turbo: decoding sample " + std::to_string(sample) + ": " + tjGetErrorStr2(handle_.h));
    std::uint64_t r = mix(stage_.seed() ^ sample);
    int ox = static_cast<int>(r % static_cast<std::uint64_t>(sw - w + 1));
    int oy = static_cast<int>((r >> 20) % static_cast<std::uint64_t>(sh - h + 1));
    bool flip = (r >> 40) & 1;
    auto* dst = reinterpret_cast<float*>(out + static_cast<std::size_t>(s) * shape.sample_bytes);
    for (int c = 0; c < 3; ++c) {
      const float scale = 1.0f / (255.0f * kStd[c]), bias = kMean[c] / kStd[c];
      for (int y = 0; y < h; ++y) {
        const unsigned char* row = &rgb_[(idx(oy + y) * idx(sw) + idx(ox)) * 3 + idx(c)];
        float* o = dst + (idx(c) * idx(h) + idx(y)) * idx(w);
        for (int x = 0; x < w; ++x) o[x] = static_cast<float>(row[(flip ? w - 1 - x : x) * 3]) * scale - bias;
      }
    }
  }
}

}  // namespace

std::unique_ptr<DecodeStage> make_jpeg_stage(const JpegStageParams& params) { return std::make_unique<JpegStage>(params); }

}  // namespace placebench::hostpipe
