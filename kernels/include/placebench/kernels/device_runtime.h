// What the CUDA runtime says about this node: driver presence, versions, and the visible devices.
// Works in every build: without the CUDA backend it reports "not built"; without a driver, "no driver".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace placebench::kernels {

struct CudaDevice {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  // "0000:34:00.0", lower case, 4-digit domain (hwloc's form)
  std::uint64_t total_memory_bytes = 0;
  int cc_major = 0;
  int cc_minor = 0;
};

struct DeviceRuntime {
  bool built = false;          // the CUDA backend was compiled into this binary
  int runtime_version = 0;     // CUDA runtime, e.g. 13000
  int driver_version = 0;      // 0: no driver on this node
  std::string status;          // "ok", "not built", "no driver", "no device", or the runtime's error
  std::vector<CudaDevice> devices;
  bool usable() const { return built && !devices.empty(); }
};

// Queries the runtime once; safe on nodes with no driver (the static cudart looks libcuda up lazily).
DeviceRuntime query_device_runtime();

// 13000 -> "13.0"; 0 -> "none".
std::string format_cuda_version(int version);

// Normalises a PCI bus id ("00000000:34:00.0" or "0000:34:00.0", any case) to "0000:34:00.0".
std::string normalize_pci_bus_id(const std::string& bus_id);

}  // namespace placebench::kernels
