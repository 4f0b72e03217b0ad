// The host backend's staging mechanism: timed copy loops between two host buffers (the "device buffer"
// lives on the device's NUMA node), and the data check that every staged byte arrived.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

namespace placebench::hostpipe {

// `copies` memcpy's of `bytes` from src to dst by the calling thread; returns elapsed seconds
// (steady_clock around the whole batch, nothing else inside).
double timed_host_copies(void* dst, const void* src, std::size_t bytes, int copies);

// Writes a pattern that depends on `seed` and every 8-byte word's index (so a shifted, truncated or
// stale copy does not match).
void fill_pattern(void* data, std::size_t bytes, std::uint64_t seed);

// The offset of the first byte that differs from fill_pattern(seed), or nullopt when all match.
std::optional<std::size_t> find_pattern_mismatch(const void* data, std::size_t bytes, std::uint64_t seed);

}  // namespace placebench::hostpipe
