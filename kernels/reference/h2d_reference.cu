// placebench-h2d-reference: a host-to-device copy bandwidth measured by nvbandwidth's method, written
// independently of placebench's staging code so the GPU node check can state placebench's ratio to it.
// Method (nvbandwidth host_to_device_memcpy_ce): cudaHostAlloc'd source, a spin kernel holds the stream
// while 16 copies are queued, CUDA events around the copies, the median of the samples.
// Usage: placebench-h2d-reference [--gpu G] [--bytes N[K|M|G]] [--samples S]; prints one JSON object.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kCopiesPerSample = 16;

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "placebench-h2d-reference: %s failed: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

__global__ void spin_until_released(volatile int* flag, long long max_cycles) {
  long long start = clock64();
  while (*flag == 0 && clock64() - start < max_cycles) {
  }
}

std::size_t parse_bytes(const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  std::size_t scale = 1;
  if (end && (*end == 'K' || *end == 'k')) scale = std::size_t{1} << 10;
  if (end && (*end == 'M' || *end == 'm')) scale = std::size_t{1} << 20;
  if (end && (*end == 'G' || *end == 'g')) scale = std::size_t{1} << 30;
  if (!(v > 0)) {
    std::fprintf(stderr, "placebench-h2d-reference: --bytes %s: give a positive size (256M)\n", text);
    std::exit(2);
  }
  return static_cast<std::size_t>(v * static_cast<double>(scale));
}

}  // namespace

int main(int argc, char** argv) {
  int gpu = 0, samples = 10;
  std::size_t bytes = std::size_t{256} << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--gpu")) gpu = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--bytes")) bytes = parse_bytes(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--samples")) samples = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "placebench-h2d-reference: unknown option %s; accepted: --gpu, --bytes, --samples\n", argv[i]);
      return 2;
    }
  }
  check(cudaSetDevice(gpu), "cudaSetDevice");
  void *host = nullptr, *dev = nullptr;
  int* flag = nullptr;
  int* flag_dev = nullptr;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  check(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  std::memset(host, 1, bytes);
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  check(cudaHostAlloc(reinterpret_cast<void**>(&flag), sizeof(int), cudaHostAllocMapped), "cudaHostAlloc (flag)");
  check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&flag_dev), flag, 0), "cudaHostGetDevicePointer");
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> gbps;
  for (int s = 0; s <= samples; ++s) {  // sample 0 warms up
    *reinterpret_cast<volatile int*>(flag) = 0;
    spin_until_released<<<1, 1, 0, stream>>>(flag_dev, 20'000'000'000LL);
    check(cudaGetLastError(), "spin kernel launch");
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int c = 0; c < kCopiesPerSample; ++c)
      check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    *reinterpret_cast<volatile int*>(flag) = 1;
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (s > 0) gbps.push_back(static_cast<double>(bytes) * kCopiesPerSample / (static_cast<double>(ms) * 1e-3) / 1e9);
  }
  std::sort(gbps.begin(), gbps.end());
  std::size_t n = gbps.size();
  double median = n % 2 ? gbps[n / 2] : (gbps[n / 2 - 1] + gbps[n / 2]) / 2;
  std::printf("{\"kind\": \"h2d-reference\", \"method\": \"nvbandwidth host_to_device_memcpy_ce\", \"gpu\": %d, "
              "\"bytes\": %zu, \"copies_per_sample\": %d, \"samples\": %zu, \"gbps_median\": %.3f}\n",
              gpu, bytes, kCopiesPerSample, n, median);
  cudaFreeHost(flag);
  cudaFreeHost(host);
  cudaFree(dev);
  return 0;
}
