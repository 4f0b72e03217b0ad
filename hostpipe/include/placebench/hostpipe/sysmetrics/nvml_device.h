// One GPU read through NVML, loaded at run time with dlopen so that the binary runs on nodes without
// a GPU driver. Absence (no library, no device, a failing call) is recorded as a reason, never thrown.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "placebench/hostpipe/sysmetrics/nvml_compat.h"
#include "placebench/hostpipe/sysmetrics/sample.h"

namespace placebench::hostpipe::sysmetrics {

struct GpuReading {
  float util_pct = kNaNf;
  double mem_used_bytes = kNaN;
  float sm_clock_mhz = kNaNf;
  std::uint64_t throttle_reasons = 0;
  std::string error;  // the first call that failed in this reading, "" when all succeeded
};

class NvmlDevice {
 public:
  // Loads `library`, calls nvmlInit_v2 and finds the device by PCI bus id when given, else by index.
  NvmlDevice(const std::string& library, int index, const std::string& pci_bus_id = "");
  ~NvmlDevice();  // nvmlShutdown and dlclose (NVML counts its inits, so several devices may coexist)
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& unavailable_reason() const { return reason_; }
  const std::string& name() const { return name_; }

  // Four NVML calls: utilisation, memory, SM clock, clocks event reasons.
  GpuReading read() const;

 private:
  std::string describe(const char* call, nvml::Return rc) const;

  void* handle_ = nullptr;
  bool initialised_ = false;
  nvml::Device device_ = nullptr;
  std::string reason_;
  std::string name_;
  nvml::ShutdownFn shutdown_ = nullptr;
  nvml::ErrorStringFn error_string_ = nullptr;
  nvml::GetUtilizationRatesFn utilization_ = nullptr;
  nvml::GetMemoryInfoFn memory_ = nullptr;
  nvml::GetClockInfoFn clock_ = nullptr;
  nvml::GetClocksReasonsFn reasons_ = nullptr;
};

// {0x4, 0x20} -> {"sw_power_cap", "sw_thermal_slowdown"}; unknown bits become "bit_0x...".
std::vector<std::string> clocks_reason_names(std::uint64_t bits);

}  // namespace placebench::hostpipe::sysmetrics
