// Decode stages and contention threads: batches depend only on their index, the jpeg stage decodes
// real JPEGs into normalised floats, and contention threads start, load and stop.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "placebench/hostpipe/pipeline/contention.h"
#include "placebench/hostpipe/pipeline/decode.h"

using namespace placebench::hostpipe;

TEST(PipelineStage, SyntheticBatchesAreDeterministicPerIndex) {
  SyntheticStageParams p;
  p.shape.samples = 3;
  p.shape.sample_bytes = 4096;
  p.dataset_samples = 5;
  p.cpu_work_ns_per_kib = 200;
  p.element_iterations_per_ns = 1.0;
  auto stage = make_synthetic_stage(p);
  EXPECT_EQ(stage->dataset_bytes(), 5u * 4096);
  std::vector<std::byte> a(p.shape.batch_bytes()), b(a.size()), c(a.size());
  stage->make_worker()->produce(7, a.data());
  stage->make_worker()->produce(7, b.data());
  stage->make_worker()->produce(8, c.data());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size()), 0);
}

TEST(PipelineStage, JpegDecodesCropsAndNormalises) {
  JpegStageParams p;
  p.shape.samples = 2;
  p.shape.width = 32;
  p.shape.height = 24;
  p.dataset_samples = 3;
  auto stage = make_jpeg_stage(p);
  ASSERT_EQ(stage->shape().sample_bytes, image_sample_bytes(32, 24));
  EXPECT_GT(stage->dataset_bytes(), 0u);
  EXPECT_LT(stage->dataset_bytes(), 3 * image_sample_bytes(36, 27));  // compressed
  std::vector<float> a(stage->shape().batch_bytes() / sizeof(float)), b(a.size());
  stage->make_worker()->produce(1, reinterpret_cast<std::byte*>(a.data()));
  stage->make_worker()->produce(1, reinterpret_cast<std::byte*>(b.data()));
  EXPECT_EQ(a, b);
  double lo = 1e9, hi = -1e9;
  for (float v : a) {
    ASSERT_TRUE(std::isfinite(v));
    lo = std::min<double>(lo, v);
    hi = std::max<double>(hi, v);
  }
  // (x/255 - mean) / std spans about [-2.12, 2.64] for ImageNet statistics.
  EXPECT_GE(lo, -2.2);
  EXPECT_LE(hi, 2.7);
  EXPECT_GT(hi - lo, 0.5);  // not a flat image
}

TEST(PipelineContention, StartsLoadsAndStops) {
  std::vector<ContentionTask> tasks(2);
  tasks[0].kind = ContentionTask::Kind::kStream;
  tasks[0].bytes = 3 << 20;
  tasks[1].kind = ContentionTask::Kind::kSpin;
  tasks[1].cpus = {0};
  ContentionThreads load(tasks);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto reports = load.stop();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_GT(reports[0].gbps(), 0.0);
  EXPECT_GT(reports[1].seconds, 0.0);
  EXPECT_TRUE(load.stop().empty());
}
