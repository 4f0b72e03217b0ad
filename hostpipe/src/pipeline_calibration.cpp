// CPU-clock calibration of compute work (see pipeline/calibration.h).
#include "placebench/hostpipe/pipeline/calibration.h"

#include <time.h>

#include <algorithm>
#include <vector>

#include "placebench/kernels/compute.h"

namespace placebench::hostpipe {

std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double calibrate_iterations_per_cpu_ns(std::chrono::nanoseconds min_cpu_time) {
  const std::size_t elements = kernels::kDefaultCalibrationElements;
  std::vector<std::uint32_t> data(elements);
  for (std::size_t i = 0; i < elements; ++i) data[i] = static_cast<std::uint32_t>(i);
  const std::uint32_t iterations = static_cast<std::uint32_t>(std::max<std::size_t>(1, 200'000 / elements));
  kernels::compute_cpu(data.data(), elements, iterations);  // warm-up
  std::uint64_t calls = 0;
  const std::int64_t start = thread_cpu_ns();
  std::int64_t spent = 0;
  do {
    kernels::compute_cpu(data.data(), elements, iterations);
    ++calls;
    spent = thread_cpu_ns() - start;
  } while (spent < min_cpu_time.count());
  std::uint32_t folded = 0;
  for (std::uint32_t x : data) folded ^= x;
  volatile std::uint32_t sink = folded;
  (void)sink;
  return static_cast<double>(calls) * iterations * static_cast<double>(elements) / static_cast<double>(std::max<std::int64_t>(spent, 1));
}

}  // namespace placebench::hostpipe
