// The system sampler on this machine's /proc and /sys: a thread that samples, stops at once, binds
// where it is told and reports sane numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "placebench/hostpipe/process_limits.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"
#include "placebench/hostpipe/sysmetrics/sampler.h"

using namespace placebench::hostpipe::sysmetrics;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Keeps one CPU busy for `d` so utilisation has something to show.
void spin_for(std::chrono::milliseconds d) {
  volatile std::uint64_t x = 0;
  for (auto end = Clock::now() + d; Clock::now() < end;)
    for (int i = 0; i < 10000; ++i) x = x + 1;
}

}  // namespace

TEST(SysmetricsLive, ShortRunGivesSaneSamplesAndStopsPromptly) {
  SamplerOptions o;
  o.interval = 20ms;
  SystemSampler sampler(o);
  sampler.start();
  spin_for(70ms);
  auto before = Clock::now();
  SamplerSummary s = sampler.stop();
  auto stop_ms = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
  EXPECT_LT(stop_ms, 200.0);
  ASSERT_GE(s.n_samples, 1u);
  EXPECT_EQ(s.series.size(), s.n_samples);
  EXPECT_EQ(s.interval, 20ms);
  EXPECT_GT(s.duration_s, 0.05);
  EXPECT_LT(s.duration_s, 5.0);
  EXPECT_FALSE(s.per_cpu.empty());  // empty cpus: every CPU
  for (const CpuUtilSummary& c : s.per_cpu) {
    if (std::isnan(c.util_pct.max)) continue;  // an idle CPU can have no jiffy in 20 ms
    EXPECT_GE(c.util_pct.min, 0.0);
    EXPECT_LE(c.util_pct.max, 100.0);
  }
  EXPECT_GT(s.total_cpu_util_pct.max, 0.0);  // this test spun a CPU
  EXPECT_LE(s.total_cpu_util_pct.max, 100.0);
  EXPECT_GT(s.rss_max_bytes, 1u << 20);
  EXPECT_LT(s.rss_max_bytes, std::uint64_t{64} << 30);
  for (const NicSummary& n : s.nics) {
    EXPECT_NE(n.name, "lo");
    if (!std::isnan(n.rx_bytes_per_s.min)) {
      EXPECT_GE(n.rx_bytes_per_s.min, 0.0);
    }
  }
  EXPECT_FALSE(s.gpu.available);
  EXPECT_FALSE(s.sampler_thread_cpus.empty());
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  for (std::size_t i = 1; i < s.series.size(); ++i) EXPECT_GT(s.series[i].t_s, s.series[i - 1].t_s);
  nlohmann::json j = sampler_summary_to_json(s, true);
  EXPECT_EQ(j["series"]["t_s"].size(), s.n_samples);
}

TEST(SysmetricsLive, StopWakesTheThreadLongBeforeTheNextTick) {
  SamplerOptions o;
  o.interval = 10s;
  SystemSampler sampler(o);
  sampler.start();
  std::this_thread::sleep_for(30ms);
  auto before = Clock::now();
  SamplerSummary s = sampler.stop();
  double stop_ms = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
  EXPECT_LT(stop_ms, 200.0);
  EXPECT_EQ(s.n_samples, 1u);  // the tail sample only
  EXPECT_GE(s.series.at(0).dt_s, 0.029);  // at least the sleep; far less than the 10 s interval
  EXPECT_LT(s.series.at(0).dt_s, 5.0);
}

TEST(SysmetricsLive, RestartsAndStopsIdempotently) {
  SamplerOptions o;
  o.interval = 10ms;
  SystemSampler sampler(o);
  EXPECT_EQ(sampler.stop().n_samples, 0u);  // never started
  sampler.start();
  EXPECT_THROW(sampler.start(), std::logic_error);
  std::this_thread::sleep_for(35ms);
  SamplerSummary first = sampler.stop();
  EXPECT_GE(first.n_samples, 2u);
  sampler.start();  // a new trial: a new baseline and series
  std::this_thread::sleep_for(15ms);
  SamplerSummary second = sampler.stop();
  EXPECT_GE(second.n_samples, 1u);
  EXPECT_LT(second.duration_s, first.duration_s + 1.0);
  EXPECT_LT(second.series.front().t_s, 0.05);
  sampler.start();  // destroyed while running: the destructor stops it
}

TEST(SysmetricsLive, BindsTheSamplerThreadWhereTold) {
  std::vector<int> allowed = placebench::hostpipe::read_allowed_sets().cpus;
  SamplerOptions o;
  o.interval = 10ms;
  o.cpus = {allowed.front()};
  o.sampler_cpus = {allowed.back()};
  SystemSampler sampler(o);
  sampler.start();
  std::this_thread::sleep_for(20ms);
  SamplerSummary s = sampler.stop();
  EXPECT_EQ(s.sampler_bind_error, "");
  EXPECT_EQ(s.sampler_thread_cpus, (std::vector<int>{allowed.back()}));
  ASSERT_EQ(s.per_cpu.size(), 1u);
  EXPECT_EQ(s.per_cpu[0].cpu, allowed.front());

  o.sampler_cpus = {100000};  // impossible: recorded, not thrown
  SystemSampler bad(o);
  bad.start();
  SamplerSummary b = bad.stop();
  EXPECT_FALSE(b.sampler_bind_error.empty());
  EXPECT_GE(b.n_samples, 1u);
}

// Without sampler_cpus the thread is left unbound: it runs where start()'s caller may run (the runner
// passes CPUs outside the arm when there are any, so this is only the all-CPUs case).
TEST(SysmetricsLive, UnboundSamplerKeepsTheCallersAffinity) {
  std::vector<int> caller = placebench::hostpipe::current_thread_affinity();
  SamplerOptions o;
  o.interval = 10ms;
  SystemSampler sampler(o);
  sampler.start();
  SamplerSummary s = sampler.stop();
  EXPECT_EQ(s.sampler_thread_cpus, caller);
  EXPECT_EQ(s.sampler_bind_error, "");
}
