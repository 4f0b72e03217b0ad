// GPU-only tests: every CUDA kernel against its CPU reference, bit for bit. Registered only with
// PLACEBENCH_ENABLE_DEVICE_TESTING=ON. Without a usable GPU each test is skipped, or fails when the
// environment sets PLACEBENCH_REQUIRE_DEVICE=1 (a device-test run must not pass by skipping everything).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <vector>

#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/device_buffer.h"
#include "placebench/kernels/device_runtime.h"
#include "placebench/kernels/memory_kernels.h"

using namespace placebench::kernels;

namespace {

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const DeviceRuntime rt = query_device_runtime();
    if (rt.usable()) return;
    const char* require = std::getenv("PLACEBENCH_REQUIRE_DEVICE");
    if (require != nullptr && std::string(require) == "1") {
      FAIL() << "PLACEBENCH_REQUIRE_DEVICE=1 but no usable GPU: " << rt.status;
    }
    GTEST_SKIP() << "no usable GPU: " << rt.status;
  }
  static constexpr int kDevice = 0;
};

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

}  // namespace

TEST_F(DeviceTest, BufferRoundTripsThroughTheDevice) {
  Stream stream(kDevice);
  auto host = random_bytes(1 << 20, 1);
  DeviceBuffer buffer(host.size(), kDevice);
  buffer.copy_from_host(host.data(), host.size());
  std::vector<unsigned char> back(host.size());
  buffer.copy_to_host(back.data(), back.size());
  EXPECT_EQ(back, host);
  std::vector<unsigned char> back_async(host.size());
  buffer.copy_to_host_async(back_async.data(), back_async.size(), stream);
  stream.synchronize();
  EXPECT_EQ(back_async, host);
  EXPECT_THROW(buffer.copy_from_host(host.data(), host.size() + 1), std::out_of_range);
}

TEST_F(DeviceTest, BatchChecksumMatchesTheCpuAtEverySize) {
  Stream stream(kDevice);
  for (std::size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 24, 4095, 4096, 4097, 1 << 20, (64 << 20) + 3}) {
    auto host = random_bytes(n, static_cast<unsigned>(n));
    DeviceBuffer buffer(n + 64, kDevice);  // larger than the batch: the kernel must stop at n
    buffer.copy_from_host(host.data(), n);
    EXPECT_EQ(launch_batch_checksum(buffer, n, stream), batch_checksum_cpu(host.data(), n)) << n << " bytes";
  }
}

TEST_F(DeviceTest, BatchChecksumAsyncSlotMatchesTheCpu) {
  Stream stream(kDevice);
  const std::size_t n = (8 << 20) + 5;
  auto host = random_bytes(n, 42);
  DeviceBuffer buffer(n, kDevice);
  DeviceBuffer slot(sizeof(std::uint64_t), kDevice);
  buffer.copy_from_host(host.data(), n);
  enqueue_batch_checksum(buffer, n, slot, stream);
  stream.synchronize();
  std::uint64_t sum = 0;
  slot.copy_to_host(&sum, sizeof sum);
  EXPECT_EQ(batch_checksum_finalize(sum, n), batch_checksum_cpu(host.data(), n));
  // A corrupted byte on the device is seen.
  host[n / 3] ^= 0x10;
  EXPECT_NE(launch_batch_checksum(buffer, n, stream), batch_checksum_cpu(host.data(), n));
}

TEST_F(DeviceTest, ComputeMatchesTheCpu) {
  Stream stream(kDevice);
  for (std::size_t n : {1, 255, 256, 257, 1 << 20}) {
    std::vector<std::uint32_t> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
    DeviceBuffer buffer(n * sizeof(std::uint32_t), kDevice);
    buffer.copy_from_host(host.data(), n * sizeof(std::uint32_t));
    launch_compute(buffer, n, 100, stream);
    stream.synchronize();
    std::vector<std::uint32_t> device(n);
    buffer.copy_to_host(device.data(), n * sizeof(std::uint32_t));
    compute_cpu(host.data(), n, 100);
    EXPECT_EQ(device, host) << n << " elements";
  }
}

TEST_F(DeviceTest, DeviceCalibrationSizesAStep) {
  Stream stream(kDevice);
  const std::size_t n = 1 << 20;
  DeviceBuffer scratch(n * sizeof(std::uint32_t), kDevice);
  const double rate = calibrate_device_iterations_per_ns(scratch, n, stream, std::chrono::milliseconds(2));
  EXPECT_GT(rate, 0.0);
  const std::uint32_t iterations = iterations_for_duration(rate, n, std::chrono::milliseconds(20));
  const auto start = std::chrono::steady_clock::now();
  launch_compute(scratch, n, iterations, stream);
  stream.synchronize();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(ms, 10.0);  // loose: a 20 ms step, with launch overhead and clock changes allowed for
  EXPECT_LT(ms, 60.0);
}

TEST_F(DeviceTest, TriadMatchesTheCpuBitForBit) {
  Stream stream(kDevice);
  const std::size_t n = (1 << 22) + 7;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> b(n), c(n), expected(n), device(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = dist(rng);
    c[i] = dist(rng);
  }
  const float scalar = 3.14159f;
  DeviceBuffer da(n * sizeof(float), kDevice), db(n * sizeof(float), kDevice), dc(n * sizeof(float), kDevice);
  db.copy_from_host(b.data(), n * sizeof(float));
  dc.copy_from_host(c.data(), n * sizeof(float));
  launch_triad(da, db, dc, scalar, n, stream);
  stream.synchronize();
  da.copy_to_host(device.data(), n * sizeof(float));
  triad_cpu(expected.data(), b.data(), c.data(), scalar, n);
  EXPECT_EQ(device, expected);
}

TEST_F(DeviceTest, LaunchersCheckTheirArguments) {
  Stream stream(kDevice);
  DeviceBuffer small(64, kDevice);
  EXPECT_THROW(launch_batch_checksum(small, 65, stream), std::out_of_range);
  EXPECT_THROW(launch_compute(small, 17, 1, stream), std::out_of_range);
  EXPECT_THROW(launch_triad(small, small, small, 1.0f, 17, stream), std::out_of_range);
}
