// NVML loaded at run time (see sysmetrics/nvml_device.h, nvml_compat.h).
#include <dlfcn.h>

#include <cstdio>

#include "placebench/hostpipe/sysmetrics/nvml_device.h"

namespace placebench::hostpipe::sysmetrics {

namespace {

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

}  // namespace

NvmlDevice::NvmlDevice(const std::string& library, int index, const std::string& pci_bus_id) {
  if (index < 0 && pci_bus_id.empty()) {
    reason_ = "no GPU requested";
    return;
  }
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* err = dlerror();
    reason_ = "cannot load " + library + ": " + (err ? err : "unknown error") +
              " (no NVIDIA driver on this node?)";
    return;
  }
  auto init = symbol<nvml::InitFn>(handle_, "nvmlInit_v2");
  shutdown_ = symbol<nvml::ShutdownFn>(handle_, "nvmlShutdown");
  error_string_ = symbol<nvml::ErrorStringFn>(handle_, "nvmlErrorString");
  auto by_index = symbol<nvml::GetHandleByIndexFn>(handle_, "nvmlDeviceGetHandleByIndex_v2");
  auto by_pci = symbol<nvml::GetHandleByPciBusIdFn>(handle_, "nvmlDeviceGetHandleByPciBusId_v2");
  auto get_name = symbol<nvml::GetNameFn>(handle_, "nvmlDeviceGetName");
  utilization_ = symbol<nvml::GetUtilizationRatesFn>(handle_, "nvmlDeviceGetUtilizationRates");
  memory_ = symbol<nvml::GetMemoryInfoFn>(handle_, "nvmlDeviceGetMemoryInfo");
  clock_ = symbol<nvml::GetClockInfoFn>(handle_, "nvmlDeviceGetClockInfo");
  reasons_ = symbol<nvml::GetClocksReasonsFn>(handle_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!reasons_)  // drivers before NVML 12.2 know only the older name
    reasons_ = symbol<nvml::GetClocksReasonsFn>(handle_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!init || !shutdown_ || !by_index || !by_pci || !utilization_ || !memory_ || !clock_ || !reasons_) {
    reason_ = library + " lacks an NVML function placebench needs (driver too old?)";
    return;
  }
  if (nvml::Return rc = init(); rc != nvml::kSuccess) {
    reason_ = describe("nvmlInit_v2", rc);
    return;
  }
  initialised_ = true;
  nvml::Device device = nullptr;
  nvml::Return rc = pci_bus_id.empty() ? by_index(static_cast<unsigned>(index), &device)
                                       : by_pci(pci_bus_id.c_str(), &device);
  if (rc != nvml::kSuccess) {
    reason_ = describe(pci_bus_id.empty() ? "nvmlDeviceGetHandleByIndex_v2" : "nvmlDeviceGetHandleByPciBusId_v2",
                       rc) +
              " for GPU " + (pci_bus_id.empty() ? std::to_string(index) : pci_bus_id);
    return;
  }
  char name[nvml::kDeviceNameBufferSize] = {};
  if (get_name && get_name(device, name, sizeof name) == nvml::kSuccess) name_ = name;
  device_ = device;
}

NvmlDevice::~NvmlDevice() {
  if (initialised_ && shutdown_) shutdown_();
  if (handle_) dlclose(handle_);
}

std::string NvmlDevice::describe(const char* call, nvml::Return rc) const {
  const char* text = error_string_ ? error_string_(rc) : nullptr;
  return std::string(call) + " failed: " + (text ? text : "NVML error " + std::to_string(rc));
}

GpuReading NvmlDevice::read() const {
  GpuReading r;
  if (!device_) {
    r.error = reason_;
    return r;
  }
  auto note = [&](const char* call, nvml::Return rc) {
    if (rc != nvml::kSuccess && r.error.empty()) r.error = describe(call, rc);
    return rc == nvml::kSuccess;
  };
  nvml::Utilization util{};
  if (note("nvmlDeviceGetUtilizationRates", utilization_(device_, &util)))
    r.util_pct = static_cast<float>(util.gpu);
  nvml::Memory mem{};
  if (note("nvmlDeviceGetMemoryInfo", memory_(device_, &mem))) r.mem_used_bytes = static_cast<double>(mem.used);
  unsigned int mhz = 0;
  if (note("nvmlDeviceGetClockInfo", clock_(device_, nvml::kClockSm, &mhz))) r.sm_clock_mhz = static_cast<float>(mhz);
  unsigned long long reasons = 0;
  if (note("nvmlDeviceGetCurrentClocksEventReasons", reasons_(device_, &reasons))) r.throttle_reasons = reasons;
  return r;
}

std::vector<std::string> clocks_reason_names(std::uint64_t bits) {
  std::vector<std::string> names;
  for (const nvml::ClocksReason& reason : nvml::kClocksReasons) {
    if (bits & reason.bit) names.emplace_back(reason.name);
    bits &= ~reason.bit;
  }
  for (int b = 0; b < 64; ++b) {
    if (bits & (std::uint64_t{1} << b)) {
      char text[32];
      std::snprintf(text, sizeof text, "bit_0x%llx", static_cast<unsigned long long>(std::uint64_t{1} << b));
      names.emplace_back(text);
    }
  }
  return names;
}

}  // namespace placebench::hostpipe::sysmetrics
