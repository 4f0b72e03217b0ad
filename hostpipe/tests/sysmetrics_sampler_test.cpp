// The system sampler on fixture trees (exact numbers: tests/fixtures/proc/README.md), its summary
// arithmetic and JSON, and the NVML-absent path.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"
#include "placebench/hostpipe/sysmetrics/nvml_device.h"
#include "placebench/hostpipe/sysmetrics/sampler.h"

using namespace placebench::hostpipe::sysmetrics;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const std::string kFixtures = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/proc/sampler";

// A private copy of a snapshot (tests must not write to the committed fixtures).
std::string copy_snapshot(const std::string& name) {
  fs::path root = fs::path(testing::TempDir()) /
                  ("sysmetrics_" + std::to_string(::getpid()) + "_" +
                   testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(root);
  fs::create_directories(root);
  fs::copy(kFixtures + "/" + name, root, fs::copy_options::recursive);
  return root.string();
}

// Rewrites every file of `root` in place (same inode, as the kernel's files stay the same files)
// with the content of the snapshot `name`.
void advance_to(const std::string& root, const std::string& name) {
  fs::path from = kFixtures + "/" + name;
  for (const auto& entry : fs::recursive_directory_iterator(from)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::ofstream(fs::path(root) / fs::relative(entry.path(), from), std::ios::trunc) << text.str();
  }
}

SamplerOptions fixture_options(const std::string& root) {
  SamplerOptions o;
  o.proc_root = root + "/proc";
  o.sys_root = root + "/sys";
  return o;
}

}  // namespace

TEST(SysmetricsSampler, TakesExactDeltasFromTheFixtureTree) {
  std::string root = copy_snapshot("t0");
  SamplerOptions options = fixture_options(root);
  options.cpus = {1, 0, 5};  // sorted; CPU 5 is not in the fake /proc/stat
  SystemSampler sampler(options);
  EXPECT_EQ(sampler.cpus(), (std::vector<int>{0, 1, 5}));
  EXPECT_EQ(sampler.nic_names(), (std::vector<std::string>{"eth0", "ib0"}));  // lo skipped

  auto t0 = SystemSampler::Clock::now();
  sampler.take_baseline(t0);
  advance_to(root, "t1");
  Sample s = sampler.take_sample(t0 + 100ms);

  EXPECT_NEAR(s.t_s, 0.1, 1e-9);
  EXPECT_NEAR(s.dt_s, 0.1, 1e-6);
  ASSERT_EQ(s.cpu_util_pct.size(), 3u);
  EXPECT_FLOAT_EQ(s.cpu_util_pct[0], 80.0f);
  EXPECT_FLOAT_EQ(s.cpu_util_pct[1], 10.0f);
  EXPECT_TRUE(std::isnan(s.cpu_util_pct[2]));
  EXPECT_FLOAT_EQ(s.total_cpu_util_pct, 45.0f);
  EXPECT_FLOAT_EQ(s.mem_some_avg10_pct, 2.5f);
  EXPECT_DOUBLE_EQ(s.mem_some_stall_us, 20000.0);
  EXPECT_EQ(s.rss_bytes, 2500u * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(s.major_faults, 3u);
  ASSERT_EQ(s.nic_rx_bytes_per_s.size(), 2u);
  EXPECT_FLOAT_EQ(s.nic_rx_bytes_per_s[0], 1e6f);
  EXPECT_FLOAT_EQ(s.nic_tx_bytes_per_s[0], 5e5f);
  EXPECT_FLOAT_EQ(s.nic_rx_bytes_per_s[1], 0.0f);
  EXPECT_FLOAT_EQ(s.nic_tx_bytes_per_s[1], 100.0f);
  EXPECT_TRUE(std::isnan(s.gpu_util_pct));  // no GPU asked for

  // Nothing changed since: zero rates, no jiffies elapsed (NaN utilisation), no faults.
  Sample idle = sampler.take_sample(t0 + 200ms);
  EXPECT_TRUE(std::isnan(idle.cpu_util_pct[0]));
  EXPECT_FLOAT_EQ(idle.nic_rx_bytes_per_s[0], 0.0f);
  EXPECT_EQ(idle.major_faults, 0u);

  SamplerSummary summary = sampler.summarise({s, idle});
  EXPECT_EQ(summary.n_samples, 2u);
  EXPECT_TRUE(summary.memory_pressure.available);
  EXPECT_DOUBLE_EQ(summary.memory_pressure.some_stall_us, 20000.0);
  EXPECT_DOUBLE_EQ(summary.per_cpu[0].util_pct.mean, 80.0);  // the NaN sample does not count
  EXPECT_DOUBLE_EQ(summary.nics[0].rx_bytes_per_s.mean, 5e5);  // 1e6 and 0 over equal intervals
  EXPECT_DOUBLE_EQ(summary.nics[0].rx_bytes_per_s.max, 1e6);
  EXPECT_EQ(summary.major_faults, 3u);
  EXPECT_FALSE(summary.gpu.available);
  EXPECT_EQ(summary.gpu.unavailable_reason, "no GPU requested");
  EXPECT_TRUE(summary.errors.empty());
}

TEST(SysmetricsSampler, CounterResetsAndVanishedNicsReadNaN) {
  std::string root = copy_snapshot("t1");
  SystemSampler sampler(fixture_options(root));
  auto t0 = SystemSampler::Clock::now();
  sampler.take_baseline(t0);
  advance_to(root, "t0");  // every counter goes back: a reset, not a negative rate
  fs::remove(root + "/sys/class/net/ib0/statistics/tx_bytes");
  Sample s = sampler.take_sample(t0 + 100ms);
  EXPECT_TRUE(std::isnan(s.nic_rx_bytes_per_s[0]));
  // ib0's open file still reads (unlinked files stay readable); its tx counter went back.
  EXPECT_TRUE(std::isnan(s.nic_tx_bytes_per_s[1]));
  EXPECT_TRUE(std::isnan(s.total_cpu_util_pct));
  EXPECT_TRUE(std::isnan(s.mem_some_stall_us));
  EXPECT_EQ(s.major_faults, 0u);
}

TEST(SysmetricsSampler, MissingPressureFileIsUnavailableNotAnError) {
  std::string root = copy_snapshot("t0");
  fs::remove_all(root + "/proc/pressure");
  SystemSampler sampler(fixture_options(root));
  Sample s = sampler.take_sample();  // first call takes the baseline itself
  EXPECT_TRUE(std::isnan(s.mem_some_avg10_pct));
  SamplerSummary summary = sampler.summarise({s});
  EXPECT_FALSE(summary.memory_pressure.available);
  EXPECT_NE(summary.memory_pressure.unavailable_reason.find("pressure/memory"), std::string::npos);
  nlohmann::json j = sampler_summary_to_json(summary, false);
  EXPECT_FALSE(j["memory"]["pressure"]["available"].get<bool>());
  EXPECT_TRUE(j["memory"]["pressure"]["reason"].is_string());
}

TEST(SysmetricsSampler, WithoutProcStatTheConstructorSaysWhy) {
  SamplerOptions o;
  o.proc_root = "/nonexistent";
  try {
    SystemSampler sampler(o);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/stat"), std::string::npos) << e.what();
  }
  o = SamplerOptions{};
  o.interval = 0ms;
  EXPECT_THROW(SystemSampler{o}, std::invalid_argument);
}

TEST(SysmetricsSampler, AbsentNvmlIsRecordedAsUnavailable) {
  std::string root = copy_snapshot("t0");
  SamplerOptions o = fixture_options(root);
  o.gpu_index = 0;
  o.nvml_library = "libplacebench-no-such-nvml.so.1";
  SystemSampler sampler(o);
  Sample s = sampler.take_sample();
  EXPECT_TRUE(std::isnan(s.gpu_util_pct));
  SamplerSummary summary = sampler.summarise({s});
  EXPECT_FALSE(summary.gpu.available);
  EXPECT_NE(summary.gpu.unavailable_reason.find("cannot load libplacebench-no-such-nvml.so.1"), std::string::npos)
      << summary.gpu.unavailable_reason;
  EXPECT_TRUE(summary.errors.empty());  // absence is not an error
  nlohmann::json j = sampler_summary_to_json(summary, true);
  EXPECT_EQ(j["gpu"], (nlohmann::json{{"available", false}, {"reason", summary.gpu.unavailable_reason}}));
}

TEST(SysmetricsSampler, SummaryIsTimeWeighted) {
  std::string root = copy_snapshot("t0");
  SamplerOptions o = fixture_options(root);
  o.cpus = {0, 1};
  SystemSampler sampler(o);
  auto sample = [](float dt, float cpu0, float cpu1, float rx) {
    Sample s;
    s.dt_s = dt;
    s.cpu_util_pct = {cpu0, cpu1};
    s.total_cpu_util_pct = cpu0;
    s.nic_rx_bytes_per_s = {rx, kNaNf};
    s.nic_tx_bytes_per_s = {0, 0};
    s.gpu_throttle_reasons = 0x4;
    return s;
  };
  // A full tick and a tail a quarter as long: the tail weighs a quarter.
  std::vector<Sample> series = {sample(0.1f, 100, 0, 1000), sample(0.025f, 0, kNaNf, 6000)};
  series[0].t_s = 0.1;
  series[1].t_s = 0.125;
  series[1].gpu_throttle_reasons = 0x4 | 0x20;
  SamplerSummary s = sampler.summarise(series);
  EXPECT_NEAR(s.per_cpu[0].util_pct.mean, 80.0, 1e-4);  // (100*0.1 + 0*0.025) / 0.125
  EXPECT_DOUBLE_EQ(s.per_cpu[0].util_pct.min, 0.0);
  EXPECT_DOUBLE_EQ(s.per_cpu[1].util_pct.mean, 0.0);
  EXPECT_NEAR(s.arm_cpu_util_pct.mean, 40.0, 1e-4);  // per-sample arm means 50 and 0
  EXPECT_NEAR(s.nics[0].rx_bytes_per_s.mean, 2000.0, 1e-2);
  EXPECT_TRUE(std::isnan(s.nics[1].rx_bytes_per_s.mean));
  EXPECT_DOUBLE_EQ(s.duration_s, 0.125);
  ASSERT_EQ(s.gpu.throttle_reasons.size(), 2u);
  EXPECT_EQ(s.gpu.throttle_reasons[0].name, "sw_power_cap");
  EXPECT_DOUBLE_EQ(s.gpu.throttle_reasons[0].sample_fraction, 1.0);
  EXPECT_EQ(s.gpu.throttle_reasons[1].name, "sw_thermal_slowdown");
  EXPECT_DOUBLE_EQ(s.gpu.throttle_reasons[1].sample_fraction, 0.5);

  nlohmann::json j = sampler_summary_to_json(s, true);
  EXPECT_EQ(j["n_samples"], 2);
  EXPECT_EQ(j["interval_ms"], 100);
  EXPECT_DOUBLE_EQ(j["cpu"]["per_cpu"][0]["util_pct"]["mean"].get<double>(), 80.0);
  EXPECT_TRUE(j["nics"][1]["rx_bytes_per_s"]["mean"].is_null());  // NaN is null
  EXPECT_EQ(j["series"]["cpus"], (nlohmann::json{0, 1}));
  EXPECT_EQ(j["series"]["cpu_util_pct"], (nlohmann::json{{100.0, 0.0}, {0.0, nullptr}}));
  EXPECT_EQ(j["series"]["nics"], (nlohmann::json{"eth0", "ib0"}));
  EXPECT_EQ(j["series"]["gpu_throttle_reasons"], (nlohmann::json{4, 36}));
  EXPECT_FALSE(sampler_summary_to_json(s, false).contains("series"));
}

TEST(SysmetricsSampler, NamesThrottleReasons) {
  EXPECT_EQ(clocks_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(clocks_reason_names(0x1 | 0x8 | 0x100),
            (std::vector<std::string>{"gpu_idle", "hw_slowdown", "display_clock_setting"}));
  EXPECT_EQ(clocks_reason_names(0x1000), std::vector<std::string>{"bit_0x1000"});
}
