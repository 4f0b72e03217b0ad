// Timed host<->device copy batches for the staging workload (CUDA backend), and host memory that the
// device can DMA from: registration of existing (NUMA-placed) memory, or cudaHostAlloc.
// Method (as nvbandwidth): a spin kernel holds the stream until every copy of the batch is queued, so
// launch gaps are not measured; CUDA events around the copies give the elapsed device time.
#pragma once
#include <cstddef>

#include "placebench/kernels/device_buffer.h"

namespace placebench::kernels {

enum class CopyKind { kHostToDevice, kDeviceToHost };

// Seconds for `copies` copies of `bytes` between `host` and `device_buffer` in one direction.
double timed_copy_batch(DeviceBuffer& device_buffer, void* host, std::size_t bytes, int copies, CopyKind kind,
                        Stream& stream);

// Both directions at once on two streams (one H2D, one D2H buffer pair); seconds until both finish.
double timed_copy_batch_bidir(DeviceBuffer& to_device, const void* host_src, DeviceBuffer& from_device, void* host_dst,
                              std::size_t bytes, int copies, Stream& h2d, Stream& d2h);

// cudaHostRegister / cudaHostUnregister of existing memory (the pages stay where they are).
void host_register(void* ptr, std::size_t bytes);
void host_unregister(void* ptr) noexcept;

// cudaHostAlloc / cudaFreeHost: pinned memory whose placement the runtime decides (record where it lands).
void* host_alloc_pinned(std::size_t bytes);
void host_free_pinned(void* ptr) noexcept;

}  // namespace placebench::kernels
