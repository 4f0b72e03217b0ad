// Timed host<->device copy batches for the staging workload (CUDA backend), and host memory that the
// device can DMA from: registration of existing (NUMA-placed) memory, or cudaHostAlloc.
// Method (copy_timing.h): pinned memory as nvbandwidth (a spin kernel holds the stream while at most 16
// copies are queued, CUDA events around them; larger batches are several holds whose times add up);
// pageable memory as bandwidthTest (a host timer around synchronous copies, no hold kernel).
// The copies run on the given streams (never the legacy default stream).
#pragma once
#include <cstddef>

#include "placebench/kernels/copy_timing.h"
#include "placebench/kernels/device_buffer.h"

namespace placebench::kernels {

enum class CopyKind { kHostToDevice, kDeviceToHost };

// Seconds for `copies` copies of `bytes` between `host` and `device_buffer` in one direction.
// Throws std::runtime_error when a hold kernel reached its deadline (the time would be wrong).
double timed_copy_batch(DeviceBuffer& device_buffer, void* host, std::size_t bytes, int copies, CopyKind kind,
                        Stream& stream, CopyTiming timing);

// Both directions at once on two streams (one H2D, one D2H buffer pair); seconds until both finish.
double timed_copy_batch_bidir(DeviceBuffer& to_device, const void* host_src, DeviceBuffer& from_device, void* host_dst,
                              std::size_t bytes, int copies, Stream& h2d, Stream& d2h, CopyTiming timing);

// Resets `device`'s primary context (cudaDeviceReset: every allocation on it must be gone) and creates
// a new one from the calling thread, so the driver's internal pinned staging buffers are allocated
// where that thread runs.
void fresh_device_context(int device);

// cudaHostRegister / cudaHostUnregister of existing memory (the pages stay where they are).
void host_register(void* ptr, std::size_t bytes);
void host_unregister(void* ptr) noexcept;

// cudaHostAlloc / cudaFreeHost: pinned memory whose placement the runtime decides (record where it lands).
void* host_alloc_pinned(std::size_t bytes);
void host_free_pinned(void* ptr) noexcept;

}  // namespace placebench::kernels
