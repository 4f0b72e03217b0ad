// Device runtime query for builds without the CUDA backend.
#include "placebench/kernels/device_runtime.h"

namespace placebench::kernels {

DeviceRuntime query_device_runtime() {
  DeviceRuntime rt;
  rt.status = "not built";
  return rt;
}

}  // namespace placebench::kernels
