// The background system sampler: during a trial, a thread off the measured CPUs reads CPU
// utilisation, memory pressure, this process's RSS and major faults, NIC throughput and (through
// NVML) the GPU every `interval`, and stop() summarises what it saw. See docs/system-metrics.md.
//
// Typical use (one sampler per arm, reused across its trials):
//   SystemSampler sampler(options);   // opens the files, loads NVML (may take tens of ms)
//   sampler.start();                  // baseline now; samples every interval from here
//   ... the trial ...
//   SamplerSummary s = sampler.stop();  // one last, shorter sample covers the tail
#pragma once
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "placebench/hostpipe/sysmetrics/proc_readers.h"
#include "placebench/hostpipe/sysmetrics/sample.h"

namespace placebench::hostpipe::sysmetrics {

class NvmlDevice;

class SystemSampler {
 public:
  using Clock = std::chrono::steady_clock;

  // Opens every file it will read and loads NVML when a GPU is asked for. Never throws for a
  // missing metric (it is recorded as unavailable); throws std::runtime_error when <proc>/stat is
  // unreadable, and std::invalid_argument for a non-positive interval.
  explicit SystemSampler(SamplerOptions options);
  ~SystemSampler();  // stops the thread if it still runs
  SystemSampler(const SystemSampler&) = delete;
  SystemSampler& operator=(const SystemSampler&) = delete;

  // Takes the baseline and starts the thread. Throws std::logic_error when already running.
  void start();
  // Wakes the thread at once (it waits on a condition variable, never a plain sleep), lets it take a
  // last sample covering the time since its previous one, joins it and summarises. Returns in well
  // under a millisecond plus one tick's cost. Calling it when not running returns an empty summary.
  SamplerSummary stop();

  // One tick by hand, for tests and benchmarks; not while the thread runs. take_sample() returns the
  // deltas since the previous take_sample() or take_baseline() (taking a baseline first if none was
  // taken, so that sample's rates are NaN). `now` may be given so tests get exact rates.
  void take_baseline(Clock::time_point now = Clock::now());
  Sample take_sample(Clock::time_point now = Clock::now());
  // The summary of a series taken by this sampler (stop() calls it on the thread's series).
  SamplerSummary summarise(std::vector<Sample> series) const;

  const std::vector<int>& cpus() const { return cpus_; }
  const std::vector<std::string>& nic_names() const { return nic_names_; }

 private:
  struct Counters {
    Clock::time_point time;
    ProcStat stat;
    std::uint64_t pressure_total_us = 0;
    std::uint64_t major_faults = 0;
    bool pressure_ok = false;
    bool major_faults_ok = false;
    std::vector<std::uint64_t> nic_rx, nic_tx;
    std::vector<bool> nic_ok;
  };
  struct Nic {
    ProcFile rx, tx;
  };

  void read_counters(Counters& c, Sample* sample);
  void note_error(const std::string& error);
  void run();

  SamplerOptions options_;
  std::vector<int> cpus_;
  std::vector<std::string> nic_names_;
  std::vector<Nic> nics_;
  ProcFile stat_file_, pressure_file_, statm_file_, self_stat_file_;
  std::string pressure_unavailable_;
  std::unique_ptr<NvmlDevice> gpu_;
  long page_size_ = 4096;

  std::string buffer_;
  Counters previous_, current_;
  bool have_baseline_ = false;
  Clock::time_point baseline_time_;
  std::vector<std::string> errors_;

  // Shared with the thread: guarded by mutex_.
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_requested_ = false;
  // Owned by the thread while it runs, read by stop() after the join.
  std::thread thread_;
  std::vector<Sample> series_;
  std::vector<int> thread_cpus_;
  std::string bind_error_;
};

}  // namespace placebench::hostpipe::sysmetrics
