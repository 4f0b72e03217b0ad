// Staging copies without the CUDA backend: every call explains that it needs CUDA.
#include "placebench/kernels/staging_copy.h"

namespace placebench::kernels {

double timed_copy_batch(DeviceBuffer&, void*, std::size_t, int, CopyKind, Stream&) {
  throw CudaBackendNotBuilt("timed_copy_batch");
}
double timed_copy_batch_bidir(DeviceBuffer&, const void*, DeviceBuffer&, void*, std::size_t, int, Stream&, Stream&) {
  throw CudaBackendNotBuilt("timed_copy_batch_bidir");
}
void host_register(void*, std::size_t) { throw CudaBackendNotBuilt("host_register"); }
void host_unregister(void*) noexcept {}
void* host_alloc_pinned(std::size_t) { throw CudaBackendNotBuilt("host_alloc_pinned"); }
void host_free_pinned(void*) noexcept {}

}  // namespace placebench::kernels
