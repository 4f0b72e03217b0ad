// Staging copies without the CUDA backend: every call explains that it needs CUDA.
#include "placebench/kernels/staging_copy.h"

namespace placebench::kernels {

double timed_copy_batch(DeviceBuffer&, void*, std::size_t, int, CopyKind, Stream&, CopyTiming) {
  throw CudaBackendNotBuilt("timed_copy_batch");
}
double timed_copy_batch_bidir(DeviceBuffer&, const void*, DeviceBuffer&, void*, std::size_t, int, Stream&, Stream&, CopyTiming) {
  throw CudaBackendNotBuilt("timed_copy_batch_bidir");
}
void fresh_device_context(int) { throw CudaBackendNotBuilt("fresh_device_context"); }
void host_register(void*, std::size_t) { throw CudaBackendNotBuilt("host_register"); }
void host_unregister(void*) noexcept {}
void* host_alloc_pinned(std::size_t) { throw CudaBackendNotBuilt("host_alloc_pinned"); }
void host_free_pinned(void*) noexcept {}

}  // namespace placebench::kernels
