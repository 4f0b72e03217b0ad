// The background system sampler: files opened once, one tick = re-read them and take deltas (see
// sysmetrics/sampler.h). The summary of a series is in sysmetrics_summary.cpp.
#include "placebench/hostpipe/sysmetrics/sampler.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/process_limits.h"  // current_thread_affinity
#include "placebench/hostpipe/sysmetrics/nvml_device.h"

namespace placebench::hostpipe::sysmetrics {

namespace {

// Counters only go up; a smaller value means a reset (an interface re-created), not a negative rate.
double counter_delta(std::uint64_t before, std::uint64_t after) {
  return after >= before ? static_cast<double>(after - before) : kNaN;
}

std::vector<std::string> list_nics(const std::string& sys_root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sys_root + "/class/net", ec)) {
    std::string name = entry.path().filename().string();
    if (name != "lo") names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

SystemSampler::SystemSampler(SamplerOptions options) : options_(std::move(options)) {
  if (options_.interval.count() <= 0)
    throw std::invalid_argument("system sampler: the interval must be positive (got " +
                                std::to_string(options_.interval.count()) + " ms)");
  page_size_ = ::sysconf(_SC_PAGESIZE);
  const std::string& proc = options_.proc_root;
  stat_file_ = ProcFile(proc + "/stat");
  if (!stat_file_.read(buffer_))
    throw std::runtime_error("system sampler: " + stat_file_.error() + " (CPU utilisation needs it)");
  if (options_.cpus.empty()) {
    ProcStat stat = parse_proc_stat(buffer_);
    for (std::size_t id = 0; id < stat.present.size(); ++id)
      if (stat.present[id]) cpus_.push_back(static_cast<int>(id));
  } else {
    cpus_ = options_.cpus;
    std::sort(cpus_.begin(), cpus_.end());
    cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
  }

  pressure_file_ = ProcFile(proc + "/pressure/memory");
  if (!pressure_file_.read(buffer_)) {  // absent without CONFIG_PSI; EOPNOTSUPP with psi=0 at boot
    pressure_unavailable_ = pressure_file_.error();
    pressure_file_ = ProcFile();
  } else if (!parse_pressure(buffer_)) {
    pressure_unavailable_ = proc + "/pressure/memory: no \"some\" line";
    pressure_file_ = ProcFile();
  }
  statm_file_ = ProcFile(proc + "/self/statm");
  self_stat_file_ = ProcFile(proc + "/self/stat");

  for (std::string& name : list_nics(options_.sys_root)) {
    std::string dir = options_.sys_root + "/class/net/" + name + "/statistics/";
    Nic nic{ProcFile(dir + "rx_bytes"), ProcFile(dir + "tx_bytes")};
    if (!nic.rx.is_open() || !nic.tx.is_open()) continue;
    nic_names_.push_back(std::move(name));
    nics_.push_back(std::move(nic));
  }
  gpu_ = std::make_unique<NvmlDevice>(options_.nvml_library, options_.gpu_index, options_.gpu_pci_bus_id);
}

SystemSampler::~SystemSampler() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stop_requested_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
}

void SystemSampler::note_error(const std::string& error) {
  constexpr std::size_t kMaxErrors = 16;
  if (errors_.size() < kMaxErrors && std::find(errors_.begin(), errors_.end(), error) == errors_.end())
    errors_.push_back(error);
}

// Reads every counter into c; with a sample, also the instantaneous values (RSS, PSI avg10, GPU).
void SystemSampler::read_counters(Counters& c, Sample* sample) {
  if (stat_file_.read(buffer_)) {
    try {
      c.stat = parse_proc_stat(buffer_);
    } catch (const std::exception& e) {
      note_error(stat_file_.path() + ": " + e.what());
      c.stat = ProcStat{};
    }
  } else {
    note_error(stat_file_.error());
    c.stat = ProcStat{};
  }

  c.pressure_total_us = 0;
  c.pressure_ok = false;
  if (pressure_file_.is_open()) {
    std::optional<Pressure> p = pressure_file_.read(buffer_) ? parse_pressure(buffer_) : std::nullopt;
    if (p) {
      c.pressure_total_us = p->some_total_us;
      c.pressure_ok = true;
      if (sample) sample->mem_some_avg10_pct = static_cast<float>(p->some_avg10_pct);
    } else {
      note_error(pressure_file_.path() + ": unreadable or unparsable");
    }
  }

  std::optional<std::uint64_t> majflt = self_stat_file_.read(buffer_) ? parse_stat_major_faults(buffer_) : std::nullopt;
  if (!majflt) note_error(self_stat_file_.path() + ": no major fault count");
  c.major_faults = majflt.value_or(0);
  c.major_faults_ok = majflt.has_value();

  c.nic_rx.resize(nics_.size());
  c.nic_tx.resize(nics_.size());
  c.nic_ok.assign(nics_.size(), false);
  for (std::size_t i = 0; i < nics_.size(); ++i) {
    std::optional<std::uint64_t> rx = nics_[i].rx.read(buffer_) ? parse_u64(buffer_) : std::nullopt;
    std::optional<std::uint64_t> tx = nics_[i].tx.read(buffer_) ? parse_u64(buffer_) : std::nullopt;
    if (!rx || !tx) continue;  // the interface went away: its rates read NaN
    c.nic_rx[i] = *rx;
    c.nic_tx[i] = *tx;
    c.nic_ok[i] = true;
  }

  if (!sample) return;
  std::optional<std::uint64_t> pages = statm_file_.read(buffer_) ? parse_statm_resident_pages(buffer_) : std::nullopt;
  if (!pages) note_error(statm_file_.path() + ": no resident set size");
  sample->rss_bytes = pages.value_or(0) * static_cast<std::uint64_t>(page_size_);
  if (gpu_->available()) {
    GpuReading g = gpu_->read();
    if (!g.error.empty()) note_error(g.error);
    sample->gpu_util_pct = g.util_pct;
    sample->gpu_mem_used_bytes = g.mem_used_bytes;
    sample->gpu_sm_clock_mhz = g.sm_clock_mhz;
    sample->gpu_throttle_reasons = g.throttle_reasons;
  }
}

void SystemSampler::take_baseline(Clock::time_point now) {
  previous_.time = now;
  read_counters(previous_, nullptr);
  baseline_time_ = now;
  have_baseline_ = true;
}

Sample SystemSampler::take_sample(Clock::time_point now) {
  if (!have_baseline_) take_baseline(now);
  Sample s;
  current_.time = now;
  read_counters(current_, &s);
  const Counters& before = previous_;
  const Counters& after = current_;
  double dt_s = std::chrono::duration<double>(now - before.time).count();
  s.t_s = std::chrono::duration<double>(now - baseline_time_).count();
  s.dt_s = static_cast<float>(dt_s);

  // Utilisation = busy jiffies / all jiffies over the interval (/proc/stat, in USER_HZ units).
  auto util = [](const CpuTimes& a, const CpuTimes& b) {
    auto busy = static_cast<double>(static_cast<std::int64_t>(b.busy - a.busy));
    auto total = static_cast<double>(static_cast<std::int64_t>(b.total - a.total));
    if (a.total == 0 || b.total == 0 || total <= 0) return kNaNf;  // a failed read, or no jiffy yet
    return static_cast<float>(std::clamp(100.0 * busy / total, 0.0, 100.0));
  };
  s.total_cpu_util_pct = util(before.stat.all, after.stat.all);
  s.cpu_util_pct.reserve(cpus_.size());
  for (int cpu : cpus_) {
    auto id = static_cast<std::size_t>(cpu);
    bool present = id < before.stat.present.size() && before.stat.present[id] &&
                   id < after.stat.present.size() && after.stat.present[id];
    s.cpu_util_pct.push_back(present ? util(before.stat.per_cpu[id], after.stat.per_cpu[id]) : kNaNf);
  }

  if (before.pressure_ok && after.pressure_ok)
    s.mem_some_stall_us = counter_delta(before.pressure_total_us, after.pressure_total_us);
  if (before.major_faults_ok && after.major_faults_ok && after.major_faults >= before.major_faults)
    s.major_faults = after.major_faults - before.major_faults;

  s.nic_rx_bytes_per_s.assign(nics_.size(), kNaNf);
  s.nic_tx_bytes_per_s.assign(nics_.size(), kNaNf);
  for (std::size_t i = 0; i < nics_.size() && dt_s > 0; ++i) {
    if (i >= before.nic_ok.size() || !before.nic_ok[i] || !after.nic_ok[i]) continue;
    s.nic_rx_bytes_per_s[i] = static_cast<float>(counter_delta(before.nic_rx[i], after.nic_rx[i]) / dt_s);
    s.nic_tx_bytes_per_s[i] = static_cast<float>(counter_delta(before.nic_tx[i], after.nic_tx[i]) / dt_s);
  }
  std::swap(previous_, current_);
  return s;
}

void SystemSampler::start() {
  if (thread_.joinable()) throw std::logic_error("system sampler: start() while already running");
  series_.clear();
  errors_.clear();
  thread_cpus_.clear();
  bind_error_.clear();
  stop_requested_ = false;
  take_baseline(Clock::now());
  thread_ = std::thread(&SystemSampler::run, this);
}

void SystemSampler::run() {
  // Off the measured CPUs when the caller says where; else the affinity inherited from start()'s caller.
  if (!options_.sampler_cpus.empty()) bind_error_ = bind_current_thread(options_.sampler_cpus);
  try {
    thread_cpus_ = current_thread_affinity();
  } catch (const std::exception&) {
  }

  auto tick = [this](Clock::time_point now) {
    try {
      series_.push_back(take_sample(now));
    } catch (const std::exception& e) {
      note_error(std::string("sampler tick: ") + e.what());
    }
  };
  std::unique_lock lock(mutex_);
  Clock::time_point next = baseline_time_ + options_.interval;
  while (!wake_.wait_until(lock, next, [this] { return stop_requested_; })) {
    lock.unlock();
    Clock::time_point now = Clock::now();
    tick(now);
    next += options_.interval;
    if (next <= now) next = now + options_.interval;  // a late tick skips, it does not burst
    lock.lock();
  }
  lock.unlock();
  // The tail since the last tick, so a trial shorter than the interval still gets a sample.
  Clock::time_point now = Clock::now();
  if (series_.empty() || now - previous_.time >= std::chrono::milliseconds(1)) tick(now);
}

SamplerSummary SystemSampler::stop() {
  if (!thread_.joinable()) return summarise({});
  {
    std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  wake_.notify_one();
  thread_.join();
  std::vector<Sample> series = std::move(series_);
  series_ = {};
  return summarise(std::move(series));
}

}  // namespace placebench::hostpipe::sysmetrics
