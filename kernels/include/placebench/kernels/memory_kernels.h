// Memory-bound kernel: the STREAM triad a[i] = b[i] + scalar * c[i] over floats.
// Bandwidth = triad_bytes_moved(n) / time, with STREAM's count of 3 * sizeof(float) * n bytes (two
// reads, one write; write-allocate traffic is not counted) -- McCalpin, STREAM benchmark, 1995.
// The product and the sum are rounded separately on both sides (never fused into an FMA), so CPU and
// GPU results are bit-identical.
#pragma once
#include <cstddef>

#include "placebench/kernels/device_buffer.h"

namespace placebench::kernels {

constexpr std::size_t triad_bytes_moved(std::size_t elements) { return 3 * sizeof(float) * elements; }

// CPU reference; `a` may be the same array as `b` or `c` (each element is read before it is written).
void triad_cpu(float* a, const float* b, const float* c, float scalar, std::size_t elements);

// CUDA backend (CudaBackendNotBuilt without it): enqueues the triad over the first `elements` floats of
// the three buffers (all on the stream's device) and returns without waiting.
void launch_triad(DeviceBuffer& a, const DeviceBuffer& b, const DeviceBuffer& c, float scalar,
                  std::size_t elements, Stream& stream);

}  // namespace placebench::kernels
