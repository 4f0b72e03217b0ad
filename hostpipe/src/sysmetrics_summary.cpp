// Summary of a sampler series (see SystemSampler::summarise): time-weighted means, min and max.
#include <algorithm>
#include <cmath>
#include <limits>

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

}  // namespace

SamplerSummary SystemSampler::summarise(std::vector<Sample> series) const {
  SamplerSummary s;
  s.n_samples = series.size();
  s.interval = options_.interval;
  s.duration_s = series.empty() ? 0 : series.back().t_s;

  std::vector<StatAccumulator> per_cpu(cpus_.size()), rx(nic_names_.size()), tx(nic_names_.size());
  StatAccumulator arm, total, avg10, stall_pct, gpu_util, sm_clock;
  std::vector<std::size_t> reason_counts(64, 0);
  for (const Sample& x : series) {
    double dt = x.dt_s;
    for (std::size_t i = 0; i < per_cpu.size() && i < x.cpu_util_pct.size(); ++i) per_cpu[i].add(x.cpu_util_pct[i], dt);
    arm.add(mean_of_finite(x.cpu_util_pct), dt);
    total.add(x.total_cpu_util_pct, dt);
    avg10.add(x.mem_some_avg10_pct, dt);
    if (std::isfinite(x.mem_some_stall_us)) {
      s.memory_pressure.some_stall_us += x.mem_some_stall_us;
      if (dt > 0) stall_pct.add(100.0 * x.mem_some_stall_us / (dt * 1e6), dt);
    }
    s.rss_max_bytes = std::max(s.rss_max_bytes, x.rss_bytes);
    s.major_faults += x.major_faults;
    for (std::size_t i = 0; i < rx.size() && i < x.nic_rx_bytes_per_s.size(); ++i) {
      rx[i].add(x.nic_rx_bytes_per_s[i], dt);
      tx[i].add(x.nic_tx_bytes_per_s[i], dt);
    }
    gpu_util.add(x.gpu_util_pct, dt);
    sm_clock.add(x.gpu_sm_clock_mhz, dt);
    if (std::isfinite(x.gpu_mem_used_bytes))
      s.gpu.mem_used_max_bytes = std::isfinite(s.gpu.mem_used_max_bytes)
                                     ? std::max(s.gpu.mem_used_max_bytes, x.gpu_mem_used_bytes)
                                     : x.gpu_mem_used_bytes;
    for (int b = 0; b < 64; ++b)
      if (x.gpu_throttle_reasons & (std::uint64_t{1} << b)) ++reason_counts[static_cast<std::size_t>(b)];
  }

  for (std::size_t i = 0; i < cpus_.size(); ++i) s.per_cpu.push_back({cpus_[i], per_cpu[i].stat()});
  s.arm_cpu_util_pct = arm.stat();
  s.total_cpu_util_pct = total.stat();

  s.memory_pressure.available = pressure_unavailable_.empty();
  s.memory_pressure.unavailable_reason = pressure_unavailable_;
  s.memory_pressure.some_avg10_pct = avg10.stat();
  s.memory_pressure.some_stall_pct = stall_pct.stat();

  for (std::size_t i = 0; i < nic_names_.size(); ++i) s.nics.push_back({nic_names_[i], rx[i].stat(), tx[i].stat()});

  s.gpu.available = gpu_->available();
  s.gpu.unavailable_reason = gpu_->unavailable_reason();
  s.gpu.index = options_.gpu_index;
  s.gpu.pci_bus_id = options_.gpu_pci_bus_id;
  s.gpu.name = gpu_->name();
  s.gpu.util_pct = gpu_util.stat();
  s.gpu.sm_clock_mhz = sm_clock.stat();
  for (int b = 0; b < 64; ++b) {
    std::size_t count = reason_counts[static_cast<std::size_t>(b)];
    if (count == 0) continue;
    s.gpu.throttle_reasons.push_back({clocks_reason_names(std::uint64_t{1} << b).front(),
                                      static_cast<double>(count) / static_cast<double>(series.size())});
  }

  s.sampler_thread_cpus = thread_cpus_;
  s.sampler_bind_error = bind_error_;
  s.errors = errors_;
  s.series = std::move(series);
  return s;
}

}  // namespace placebench::hostpipe::sysmetrics
