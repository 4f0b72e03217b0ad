// Timed copy batches and pinned host memory (see staging_copy.h).
#include "placebench/kernels/staging_copy.h"

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "launch_hold.h"

namespace placebench::kernels {
namespace {

constexpr long long kHoldMaxCycles = 20'000'000'000LL;  // ~10 s at 2 GHz: a deadline, never reached normally

// Mapped pinned flag the hold kernel polls.
struct ReleaseFlag {
  int* host = nullptr;
  int* device = nullptr;
  ReleaseFlag() {
    PB_CUDA_CALL(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(int), cudaHostAllocMapped));
    *host = 0;
    PB_CUDA_CALL(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
  }
  ~ReleaseFlag() { PB_CUDA_CALL_NOEXCEPT(cudaFreeHost(host)); }
  void release() { *reinterpret_cast<volatile int*>(host) = 1; }
};

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    PB_CUDA_CALL(cudaEventCreate(&start));
    PB_CUDA_CALL(cudaEventCreate(&stop));
  }
  ~EventPair() {
    PB_CUDA_CALL_NOEXCEPT(cudaEventDestroy(start));
    PB_CUDA_CALL_NOEXCEPT(cudaEventDestroy(stop));
  }
  double seconds() {
    PB_CUDA_CALL(cudaEventSynchronize(stop));
    float ms = 0;
    PB_CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1e-3;
  }
};

void enqueue_copies(DeviceBuffer& dev, void* host, std::size_t bytes, int copies, CopyKind kind, cudaStream_t s) {
  for (int i = 0; i < copies; ++i) {
    if (kind == CopyKind::kHostToDevice)
      PB_CUDA_CALL(cudaMemcpyAsync(dev.data(), host, bytes, cudaMemcpyHostToDevice, s));
    else
      PB_CUDA_CALL(cudaMemcpyAsync(host, dev.data(), bytes, cudaMemcpyDeviceToHost, s));
  }
}

}  // namespace

double timed_copy_batch(DeviceBuffer& dev, void* host, std::size_t bytes, int copies, CopyKind kind, Stream& stream) {
  PB_CUDA_CALL(cudaSetDevice(dev.device()));
  cudaStream_t s = stream.native_handle();
  ReleaseFlag flag;
  EventPair ev;
  detail::launch_hold(flag.device, kHoldMaxCycles, s);
  PB_CUDA_CALL(cudaGetLastError());
  PB_CUDA_CALL(cudaEventRecord(ev.start, s));
  enqueue_copies(dev, host, bytes, copies, kind, s);
  PB_CUDA_CALL(cudaEventRecord(ev.stop, s));
  flag.release();
  return ev.seconds();
}

double timed_copy_batch_bidir(DeviceBuffer& to_device, const void* host_src, DeviceBuffer& from_device, void* host_dst,
                              std::size_t bytes, int copies, Stream& h2d, Stream& d2h) {
  PB_CUDA_CALL(cudaSetDevice(to_device.device()));
  ReleaseFlag flag;
  EventPair a, b;
  detail::launch_hold(flag.device, kHoldMaxCycles, h2d.native_handle());
  detail::launch_hold(flag.device, kHoldMaxCycles, d2h.native_handle());
  PB_CUDA_CALL(cudaGetLastError());
  PB_CUDA_CALL(cudaEventRecord(a.start, h2d.native_handle()));
  PB_CUDA_CALL(cudaEventRecord(b.start, d2h.native_handle()));
  enqueue_copies(to_device, const_cast<void*>(host_src), bytes, copies, CopyKind::kHostToDevice, h2d.native_handle());
  enqueue_copies(from_device, host_dst, bytes, copies, CopyKind::kDeviceToHost, d2h.native_handle());
  PB_CUDA_CALL(cudaEventRecord(a.stop, h2d.native_handle()));
  PB_CUDA_CALL(cudaEventRecord(b.stop, d2h.native_handle()));
  flag.release();
  double ta = a.seconds(), tb = b.seconds();
  // Both streams start when the flag is released; the batch ends when the slower one does.
  return ta > tb ? ta : tb;
}

void host_register(void* ptr, std::size_t bytes) { PB_CUDA_CALL(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault)); }
void host_unregister(void* ptr) noexcept { PB_CUDA_CALL_NOEXCEPT(cudaHostUnregister(ptr)); }

void* host_alloc_pinned(std::size_t bytes) {
  void* p = nullptr;
  PB_CUDA_CALL(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
  return p;
}
void host_free_pinned(void* ptr) noexcept { PB_CUDA_CALL_NOEXCEPT(cudaFreeHost(ptr)); }

}  // namespace placebench::kernels
