// Device runtime query through the (statically linked) CUDA runtime. Host code: built by the host
// compiler. With no driver installed, cudaDriverGetVersion reports 0 and nothing crashes.
#include <cuda_runtime_api.h>

#include "placebench/kernels/device_runtime.h"

namespace placebench::kernels {

DeviceRuntime query_device_runtime() {
  DeviceRuntime rt;
  rt.built = true;
  cudaRuntimeGetVersion(&rt.runtime_version);
  if (cudaDriverGetVersion(&rt.driver_version) != cudaSuccess || rt.driver_version == 0) {
    rt.driver_version = 0;
    rt.status = "no driver";
    return rt;
  }
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    rt.status = (err == cudaErrorNoDevice) ? "no device" : cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky error for later callers
    return rt;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    char bus[32] = {0};
    cudaDeviceGetPCIBusId(bus, sizeof bus, i);
    rt.devices.push_back({i, prop.name, normalize_pci_bus_id(bus), prop.totalGlobalMem, prop.major,
                          prop.minor});
  }
  rt.status = rt.devices.empty() ? "no device" : "ok";
  return rt;
}

}  // namespace placebench::kernels
