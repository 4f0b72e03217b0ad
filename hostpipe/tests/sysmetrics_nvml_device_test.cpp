// GPU-only: the sampler reads GPU 0 through NVML on a real driver. Registered only with
// PLACEBENCH_ENABLE_DEVICE_TESTING=ON. Without NVML or a GPU the test is skipped, or fails when the
// environment sets PLACEBENCH_REQUIRE_DEVICE=1.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"
#include "placebench/hostpipe/sysmetrics/nvml_device.h"
#include "placebench/hostpipe/sysmetrics/sampler.h"

using namespace placebench::hostpipe::sysmetrics;
using namespace std::chrono_literals;

TEST(SysmetricsNvmlDevice, SamplesGpuZero) {
  NvmlDevice probe("libnvidia-ml.so.1", 0);
  if (!probe.available()) {
    const char* require = std::getenv("PLACEBENCH_REQUIRE_DEVICE");
    if (require && std::string(require) == "1")
      FAIL() << "PLACEBENCH_REQUIRE_DEVICE=1 but NVML cannot read GPU 0: " << probe.unavailable_reason();
    GTEST_SKIP() << "NVML cannot read GPU 0: " << probe.unavailable_reason();
  }
  GpuReading r = probe.read();
  EXPECT_EQ(r.error, "");
  EXPECT_GE(r.util_pct, 0.0f);
  EXPECT_LE(r.util_pct, 100.0f);
  EXPECT_GT(r.mem_used_bytes, 0.0);  // the driver reserves some memory on every device
  EXPECT_GT(r.sm_clock_mhz, 0.0f);
  EXPECT_LT(r.sm_clock_mhz, 10000.0f);

  SamplerOptions o;
  o.interval = 20ms;
  o.gpu_index = 0;
  SystemSampler sampler(o);
  sampler.start();
  std::this_thread::sleep_for(100ms);
  auto before = std::chrono::steady_clock::now();
  SamplerSummary s = sampler.stop();
  double stop_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count();
  EXPECT_LT(stop_ms, 200.0);
  ASSERT_TRUE(s.gpu.available) << s.gpu.unavailable_reason;
  EXPECT_FALSE(s.gpu.name.empty());
  EXPECT_GE(s.n_samples, 3u);
  EXPECT_FALSE(std::isnan(s.gpu.util_pct.max));
  EXPECT_GT(s.gpu.mem_used_max_bytes, 0.0);
  EXPECT_GT(s.gpu.sm_clock_mhz.min, 0.0);
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  nlohmann::json j = sampler_summary_to_json(s, false);
  EXPECT_TRUE(j["gpu"]["available"].get<bool>());
  EXPECT_TRUE(j["gpu"]["throttle_reasons"].is_array());  // an idle GPU usually shows gpu_idle
}

TEST(SysmetricsNvmlDevice, UnknownPciBusIdIsUnavailableWithTheReason) {
  NvmlDevice probe("libnvidia-ml.so.1", 0);
  if (!probe.available()) GTEST_SKIP() << probe.unavailable_reason();
  NvmlDevice missing("libnvidia-ml.so.1", -1, "0000:ff:1f.7");
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.unavailable_reason().find("nvmlDeviceGetHandleByPciBusId_v2"), std::string::npos)
      << missing.unavailable_reason();
}
