// The few NVML types and function signatures the sampler uses, declared here so that neither the
// build nor the binary needs nvml.h or libnvidia-ml: the library is dlopen'ed at run time (see
// nvml_device.h) and these types describe what dlsym returns.
//
// Copied from the NVML API reference (https://docs.nvidia.com/deploy/nvml-api/), which keeps these
// ABI-stable: nvmlReturn_t and nvmlClockType_t are C enums (int), nvmlDevice_t an opaque pointer,
// nvmlUtilization_t and nvmlMemory_t (v1) plain structs. Versioned entry points (_v2) are named
// explicitly because nvml.h maps the unversioned names to them with macros.
#pragma once
#include <cstdint>

namespace placebench::hostpipe::sysmetrics::nvml {

using Return = int;                   // nvmlReturn_t
inline constexpr Return kSuccess = 0;  // NVML_SUCCESS
using Device = struct nvmlDevice_st*;  // nvmlDevice_t

using ClockType = int;                 // nvmlClockType_t
inline constexpr ClockType kClockSm = 1;  // NVML_CLOCK_SM (GRAPHICS = 0, SM = 1, MEM = 2, VIDEO = 3)

struct Utilization {                   // nvmlUtilization_t
  unsigned int gpu;                    // percent of the sample period a kernel was running
  unsigned int memory;                 // percent of the period device memory was read or written
};

struct Memory {                        // nvmlMemory_t (v1)
  unsigned long long total;            // bytes
  unsigned long long free;
  unsigned long long used;
};

inline constexpr unsigned int kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE

// Function signatures (nvml.h).
using InitFn = Return (*)();                                          // nvmlInit_v2
using ShutdownFn = Return (*)();                                      // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                        // nvmlErrorString
using GetHandleByIndexFn = Return (*)(unsigned int, Device*);         // nvmlDeviceGetHandleByIndex_v2
using GetHandleByPciBusIdFn = Return (*)(const char*, Device*);       // nvmlDeviceGetHandleByPciBusId_v2
using GetNameFn = Return (*)(Device, char*, unsigned int);            // nvmlDeviceGetName
using GetUtilizationRatesFn = Return (*)(Device, Utilization*);       // nvmlDeviceGetUtilizationRates
using GetMemoryInfoFn = Return (*)(Device, Memory*);                  // nvmlDeviceGetMemoryInfo
using GetClockInfoFn = Return (*)(Device, ClockType, unsigned int*);  // nvmlDeviceGetClockInfo
// nvmlDeviceGetCurrentClocksEventReasons (NVML 12.2+) and its deprecated older name
// nvmlDeviceGetCurrentClocksThrottleReasons: same signature, same bits.
using GetClocksReasonsFn = Return (*)(Device, unsigned long long*);

// nvmlClocksEventReason* / nvmlClocksThrottleReason* bits, with the names placebench reports.
struct ClocksReason {
  std::uint64_t bit;
  const char* name;
};
inline constexpr ClocksReason kClocksReasons[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

}  // namespace placebench::hostpipe::sysmetrics::nvml
