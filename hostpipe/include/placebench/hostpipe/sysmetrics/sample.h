// Plain data of the system sampler (see sampler.h): its options, one sample per tick, and the summary
// of a trial. No behaviour here; JSON conversion is in sysmetrics_json.h.
//
// Conventions: a float/double field that could not be measured in a tick is NaN (JSON null); every
// utilisation is in percent (0-100 per CPU); every rate is per second over the sample's own interval.
#pragma once
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace placebench::hostpipe::sysmetrics {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();

struct SamplerOptions {
  std::vector<int> cpus;                      // the arm's CPUs, for per-CPU utilisation; empty: every CPU
  std::chrono::milliseconds interval{100};    // time between ticks
  int gpu_index = -1;                         // NVML device index; -1: no GPU is sampled
  std::string gpu_pci_bus_id;                 // when set ("0000:17:00.0"), used instead of gpu_index:
                                              // NVML's index order need not match CUDA's
  std::vector<int> sampler_cpus;              // CPUs the sampler thread binds to (outside the arm);
                                              // empty: unbound, i.e. the thread keeps the affinity of
                                              // the thread that calls start()
  std::string proc_root = "/proc";            // overridable so tests use fixture trees
  std::string sys_root = "/sys";
  std::string nvml_library = "libnvidia-ml.so.1";
};

// One tick: the deltas since the previous tick (or the baseline). Kept compact (floats, parallel
// vectors whose order is SamplerSummary::cpus / ::nics) so a long trial's series stays small.
struct Sample {
  double t_s = 0;                          // end of the interval, seconds since the baseline
  float dt_s = 0;                          // length of the interval this sample covers
  std::vector<float> cpu_util_pct;         // per arm CPU; NaN when the CPU is not in /proc/stat
  float total_cpu_util_pct = kNaNf;        // every CPU of the machine (the "cpu" line)
  float mem_some_avg10_pct = kNaNf;        // /proc/pressure/memory "some avg10"
  double mem_some_stall_us = kNaN;         // delta of "some total" (microseconds stalled)
  std::uint64_t rss_bytes = 0;             // this process's resident set (/proc/self/statm)
  std::uint64_t major_faults = 0;          // delta of /proc/self/stat field 12 (majflt)
  std::vector<float> nic_rx_bytes_per_s;   // per NIC; NaN when the counter vanished or went back
  std::vector<float> nic_tx_bytes_per_s;
  float gpu_util_pct = kNaNf;              // NVML utilization.gpu (share of time a kernel ran)
  double gpu_mem_used_bytes = kNaN;        // NVML memory.used
  float gpu_sm_clock_mhz = kNaNf;          // NVML clock NVML_CLOCK_SM
  std::uint64_t gpu_throttle_reasons = 0;  // NVML clocks event/throttle reason bit mask
};

// Time-weighted mean (each sample weighs its dt_s), min and max over the samples that have a value;
// NaN when none has.
struct Stat {
  double mean = kNaN;
  double min = kNaN;
  double max = kNaN;
};

struct CpuUtilSummary {
  int cpu = -1;
  Stat util_pct;
};

struct NicSummary {
  std::string name;
  Stat rx_bytes_per_s;
  Stat tx_bytes_per_s;
};

struct MemoryPressureSummary {
  bool available = false;
  std::string unavailable_reason;  // e.g. "/proc/pressure/memory: No such file or directory"
  Stat some_avg10_pct;             // the kernel's 10 s average, as sampled
  Stat some_stall_pct;             // stalled share of each sample's interval (delta total / dt)
  double some_stall_us = 0;        // total stall over the trial
};

struct ThrottleReasonSeen {
  std::string name;               // e.g. "sw_power_cap"
  double sample_fraction = 0;     // share of the samples in which it was set
};

struct GpuSummary {
  bool available = false;
  std::string unavailable_reason;  // e.g. "no GPU requested", "cannot load libnvidia-ml.so.1: ..."
  int index = -1;
  std::string pci_bus_id;
  std::string name;                // nvmlDeviceGetName
  Stat util_pct;
  double mem_used_max_bytes = kNaN;
  Stat sm_clock_mhz;
  std::vector<ThrottleReasonSeen> throttle_reasons;
};

struct SamplerSummary {
  std::size_t n_samples = 0;
  std::chrono::milliseconds interval{0};
  double duration_s = 0;                   // baseline to the last sample
  std::vector<CpuUtilSummary> per_cpu;     // the arm's CPUs, sorted
  Stat arm_cpu_util_pct;                   // per sample, the mean over the arm's CPUs
  Stat total_cpu_util_pct;                 // the whole machine
  MemoryPressureSummary memory_pressure;
  std::uint64_t rss_max_bytes = 0;
  std::uint64_t major_faults = 0;          // over the trial
  std::vector<NicSummary> nics;            // every interface but lo, sorted by name
  GpuSummary gpu;
  std::vector<int> sampler_thread_cpus;    // the sampler thread's affinity while it ran
  std::string sampler_bind_error;          // why binding to SamplerOptions::sampler_cpus failed
  std::vector<std::string> errors;         // reads that failed during the trial (de-duplicated)
  std::vector<Sample> series;              // every sample, in order (the runner may drop it)
};

}  // namespace placebench::hostpipe::sysmetrics
