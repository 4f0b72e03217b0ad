// CPU reference of the compute step and its calibration. Elements are processed in tiles: each round
// runs across the whole tile, so the tile's independent chains fill the vector multiplier (pmulld) instead
// of one chain waiting on its own latency.
#include "placebench/kernels/compute.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace placebench::kernels {

namespace {
constexpr std::size_t kTileElements = 64;  // 16 SSE vectors of chains: enough to cover pmulld's latency
}

void compute_cpu(std::uint32_t* data, std::size_t elements, std::uint32_t iterations) {
  for (std::size_t begin = 0; begin < elements; begin += kTileElements) {
    const std::size_t n = std::min(kTileElements, elements - begin);
    std::uint32_t tile[kTileElements];
    std::copy_n(data + begin, n, tile);
    if (n == kTileElements) {
      for (std::uint32_t k = 0; k < iterations; ++k) {
        for (std::size_t j = 0; j < kTileElements; ++j) tile[j] = compute_round(tile[j]);
      }
    } else {
      for (std::uint32_t k = 0; k < iterations; ++k) {
        for (std::size_t j = 0; j < n; ++j) tile[j] = compute_round(tile[j]);
      }
    }
    std::copy_n(tile, n, data + begin);
  }
}

double calibrate_iterations_per_ns(std::size_t elements, std::chrono::nanoseconds min_duration) {
  if (elements == 0) throw std::invalid_argument("calibrate_iterations_per_ns: elements must be > 0");
  using Clock = std::chrono::steady_clock;
  std::vector<std::uint32_t> data(elements);
  for (std::size_t i = 0; i < elements; ++i) data[i] = static_cast<std::uint32_t>(i);

  // About 50 us of work per call, so clock reads are noise and the loop checks the time often.
  const std::uint32_t iterations = static_cast<std::uint32_t>(std::max<std::size_t>(1, 200'000 / elements));
  compute_cpu(data.data(), elements, iterations);  // warm-up: page in, reach the turbo state
  std::uint64_t calls = 0;
  const Clock::time_point start = Clock::now();
  Clock::duration elapsed{};
  do {
    compute_cpu(data.data(), elements, iterations);
    ++calls;
    elapsed = Clock::now() - start;
  } while (elapsed < min_duration);
  std::uint32_t folded = 0;  // keep the work observable, so no compiler drops it
  for (std::uint32_t x : data) folded ^= x;
  volatile std::uint32_t sink = folded;
  (void)sink;
  const double ns = std::max<double>(1.0, static_cast<double>(std::chrono::nanoseconds(elapsed).count()));
  return static_cast<double>(calls) * static_cast<double>(iterations) * static_cast<double>(elements) / ns;
}

std::uint32_t iterations_for_duration(double element_iterations_per_ns, std::size_t elements,
                                      std::chrono::nanoseconds duration) {
  if (!(element_iterations_per_ns > 0) || !std::isfinite(element_iterations_per_ns)) {
    throw std::invalid_argument("iterations_for_duration: the rate must be positive and finite (got " +
                                std::to_string(element_iterations_per_ns) + ")");
  }
  if (elements == 0) throw std::invalid_argument("iterations_for_duration: elements must be > 0");
  const double iterations = std::round(element_iterations_per_ns * static_cast<double>(duration.count()) /
                                       static_cast<double>(elements));
  constexpr double kMax = std::numeric_limits<std::uint32_t>::max();
  return static_cast<std::uint32_t>(std::clamp(iterations, 0.0, kMax));
}

}  // namespace placebench::kernels
