// Compute step: a kernel whose run time is set by its arithmetic, to model a training step of a given
// length. Every element goes through `iterations` rounds of
//   x = x * kComputeMul + kComputeAdd   (mod 2^32)
// a chain of dependent integer multiply-adds (one IMAD per round on the GPU). Integer arithmetic is exact,
// so CPU and GPU results are bit-identical (float FMA chains would differ: x86-64-v2 has no FMA).
// Arithmetic intensity: `iterations` multiply-adds per 8 bytes moved (4 read, 4 written).
//
// Calibration: the host backend burns a step of T ns over E elements with
//   compute_cpu(data, E, iterations_for_duration(calibrate_iterations_per_ns(), E, T)),
// the CUDA backend with calibrate_device_iterations_per_ns() and launch_compute() the same way.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "placebench/kernels/device_buffer.h"
#include "placebench/kernels/host_device.h"

namespace placebench::kernels {

// Numerical Recipes' LCG: full period mod 2^32, so rounds never collapse to a fixed point.
inline constexpr std::uint32_t kComputeMul = 1664525u;
inline constexpr std::uint32_t kComputeAdd = 1013904223u;

PLACEBENCH_HOST_DEVICE constexpr std::uint32_t compute_round(std::uint32_t x) {
  return x * kComputeMul + kComputeAdd;
}

// --- CPU reference (always built) ---------------------------------------------------------------------

// Applies `iterations` rounds to each of data[0, elements), in place (vectorised across elements).
void compute_cpu(std::uint32_t* data, std::size_t elements, std::uint32_t iterations);

// The rate of compute_cpu on this thread, in element-iterations (one round on one element) per ns,
// measured over a working set of `elements` (default: 64 KiB, cache-resident like a step's activations)
// for at least `min_duration` after a warm-up. Positive; std::invalid_argument for zero elements.
inline constexpr std::size_t kDefaultCalibrationElements = 16384;
double calibrate_iterations_per_ns(std::size_t elements = kDefaultCalibrationElements,
                                   std::chrono::nanoseconds min_duration = std::chrono::milliseconds(20));

// The iterations that make a step over `elements` last `duration` at `element_iterations_per_ns`:
// round(rate * duration_ns / elements), clamped to [0, 2^32 - 1]. std::invalid_argument for a
// non-positive or non-finite rate or zero elements.
std::uint32_t iterations_for_duration(double element_iterations_per_ns, std::size_t elements,
                                      std::chrono::nanoseconds duration);

// --- CUDA backend (CudaBackendNotBuilt without it) ---------------------------------------------------

// Enqueues compute over the first `elements` uint32 of `data` on `stream`; returns without waiting.
void launch_compute(DeviceBuffer& data, std::size_t elements, std::uint32_t iterations, Stream& stream);

// The device's rate in element-iterations per ns, timed with CUDA events over `elements` of `scratch`
// (its contents are overwritten), doubling the iterations until one launch lasts `min_duration`.
double calibrate_device_iterations_per_ns(DeviceBuffer& scratch, std::size_t elements, Stream& stream,
                                          std::chrono::nanoseconds min_duration = std::chrono::milliseconds(5));

}  // namespace placebench::kernels
