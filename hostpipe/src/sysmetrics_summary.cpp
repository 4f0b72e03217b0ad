// Summary of a sampler series (see SystemSampler::summarise): time-weighted means, min and max.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "placebench/hostpipe/sysmetrics/nvml_device.h"
#include "placebench/hostpipe/sysmetrics/sampler.h"

namespace placebench::hostpipe::sysmetrics {

namespace {

// Mean weighted by each sample's interval (a short tail sample counts for its length, not as a full
// tick): sum(v_i * dt_i) / sum(dt_i) over the samples that have a value.
class StatAccumulator {
 public:
  void add(double value, double dt_s) {
    if (!std::isfinite(value)) return;
    weighted_sum_ += value * dt_s;
    weight_ += dt_s;
    sum_ += value;
    ++count_;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  Stat stat() const {
    if (count_ == 0) return {};
    double mean = weight_ > 0 ? weighted_sum_ / weight_ : sum_ / static_cast<double>(count_);
    return {mean, min_, max_};
  }

 private:
  double weighted_sum_ = 0, weight_ = 0, sum_ = 0;
  std::size_t count_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

double mean_of_finite(const std::vector<float>& values) {
  double sum = 0;
  std::size_t n = 0;
  for (float v : values)
    if (std::isfinite(v)) sum += v, ++n;
  return n ? sum / static_cast<double>(n) : kNaN;
}

// One accumulator per metric of a series; add() takes one sample.
struct SeriesStats {
  std::vector<StatAccumulator> per_cpu, rx, tx;
  StatAccumulator arm, total, avg10, stall_pct, gpu_util, sm_clock;
  double stall_us = 0;
  std::uint64_t rss_max_bytes = 0, major_faults = 0;
  double gpu_mem_used_max_bytes = kNaN;
  std::vector<std::size_t> reason_counts = std::vector<std::size_t>(64, 0);  // samples with each throttle bit

  SeriesStats(std::size_t cpus, std::size_t nics) : per_cpu(cpus), rx(nics), tx(nics) {}

  void add(const Sample& x) {
    double dt = x.dt_s;
    for (std::size_t i = 0; i < per_cpu.size() && i < x.cpu_util_pct.size(); ++i) per_cpu[i].add(x.cpu_util_pct[i], dt);
    arm.add(mean_of_finite(x.cpu_util_pct), dt);
    total.add(x.total_cpu_util_pct, dt);
    avg10.add(x.mem_some_avg10_pct, dt);
    if (std::isfinite(x.mem_some_stall_us)) {
      stall_us += x.mem_some_stall_us;
      if (dt > 0) stall_pct.add(100.0 * x.mem_some_stall_us / (dt * 1e6), dt);
    }
    rss_max_bytes = std::max(rss_max_bytes, x.rss_bytes);
    major_faults += x.major_faults;
    for (std::size_t i = 0; i < rx.size() && i < x.nic_rx_bytes_per_s.size(); ++i) {
      rx[i].add(x.nic_rx_bytes_per_s[i], dt);
      tx[i].add(x.nic_tx_bytes_per_s[i], dt);
    }
    gpu_util.add(x.gpu_util_pct, dt);
    sm_clock.add(x.gpu_sm_clock_mhz, dt);
    if (std::isfinite(x.gpu_mem_used_bytes))
      gpu_mem_used_max_bytes = std::isfinite(gpu_mem_used_max_bytes) ? std::max(gpu_mem_used_max_bytes, x.gpu_mem_used_bytes)
                                                                      : x.gpu_mem_used_bytes;
    for (int b = 0; b < 64; ++b)
      if (x.gpu_throttle_reasons & (std::uint64_t{1} << b)) ++reason_counts[static_cast<std::size_t>(b)];
  }
};

// Each throttle reason seen, with the share of the samples that saw it.
std::vector<ThrottleReasonSeen> throttle_reasons(const SeriesStats& st, std::size_t n_samples) {
  std::vector<ThrottleReasonSeen> seen;
  for (int b = 0; b < 64; ++b) {
    std::size_t count = st.reason_counts[static_cast<std::size_t>(b)];
    if (count == 0) continue;
    seen.push_back({clocks_reason_names(std::uint64_t{1} << b).front(),
                    static_cast<double>(count) / static_cast<double>(n_samples)});
  }
  return seen;
}

}  // namespace

SamplerSummary SystemSampler::summarise(std::vector<Sample> series) const {
  SeriesStats st(cpus_.size(), nic_names_.size());
  for (const Sample& x : series) st.add(x);
  SamplerSummary s;
  s.n_samples = series.size();
  s.interval = options_.interval;
  s.duration_s = series.empty() ? 0 : series.back().t_s;

  for (std::size_t i = 0; i < cpus_.size(); ++i) s.per_cpu.push_back({cpus_[i], st.per_cpu[i].stat()});
  s.arm_cpu_util_pct = st.arm.stat();
  s.total_cpu_util_pct = st.total.stat();

  s.memory_pressure.available = pressure_unavailable_.empty();
  s.memory_pressure.unavailable_reason = pressure_unavailable_;
  s.memory_pressure.some_avg10_pct = st.avg10.stat();
  s.memory_pressure.some_stall_pct = st.stall_pct.stat();
  s.memory_pressure.some_stall_us = st.stall_us;
  s.rss_max_bytes = st.rss_max_bytes;
  s.major_faults = st.major_faults;

  for (std::size_t i = 0; i < nic_names_.size(); ++i) s.nics.push_back({nic_names_[i], st.rx[i].stat(), st.tx[i].stat()});

  s.gpu.available = gpu_->available();
  s.gpu.unavailable_reason = gpu_->unavailable_reason();
  s.gpu.index = options_.gpu_index;
  s.gpu.pci_bus_id = options_.gpu_pci_bus_id;
  s.gpu.name = gpu_->name();
  s.gpu.util_pct = st.gpu_util.stat();
  s.gpu.mem_used_max_bytes = st.gpu_mem_used_max_bytes;
  s.gpu.sm_clock_mhz = st.sm_clock.stat();
  s.gpu.throttle_reasons = throttle_reasons(st, series.size());

  s.sampler_thread_cpus = thread_cpus_;
  s.sampler_bind_error = bind_error_;
  s.errors = errors_;
  s.series = std::move(series);
  return s;
}

}  // namespace placebench::hostpipe::sysmetrics
