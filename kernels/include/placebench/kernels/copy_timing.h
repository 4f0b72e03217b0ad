// How a staging copy batch is timed, decided on the host (no CUDA here, so every rule is tested on a CPU).
//  - Pinned (page-locked) host memory: a spin kernel holds the stream while at most kMaxCopiesPerHold
//    copies are queued behind it, CUDA events time them (nvbandwidth's method, which queues 16); a larger
//    batch is several holds whose times add up, so no enqueue waits for the runtime's internal resources.
//  - Pageable memory: cudaMemcpyAsync from pageable memory may synchronise the host with the stream, so
//    a hold kernel would block the enqueue until its deadline; the copies are timed as cuda-samples'
//    bandwidthTest does, with a host timer around synchronous copies and no hold kernel.
#pragma once
#include <cstddef>
#include <vector>

namespace placebench::kernels {

inline constexpr int kMaxCopiesPerHold = 16;

enum class CopyTiming { kHeldStream, kHostTimer };

// The method for host memory that is (or is not) page-locked for the device.
CopyTiming copy_timing_for(bool host_pinned);

// The copies queued behind each hold of a batch of `copies` (>= 1): full holds, then the rest.
std::vector<int> copies_per_hold(int copies);

// The hold kernel writes 1 to its mapped "timed out" word when it leaves by its deadline rather than by
// the host's release: then the copies were not all queued when the clock started and the time is
// wrong. Throws std::runtime_error saying so (and what to do) when timed_out_word is non-zero.
void check_hold_released(int timed_out_word, int copies, std::size_t bytes);

}  // namespace placebench::kernels
