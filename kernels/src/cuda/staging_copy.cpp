// Timed copy batches and pinned host memory (see staging_copy.h and copy_timing.h). Every call runs with
// the buffer's device current and restores the caller's device afterwards.
#include "placebench/kernels/staging_copy.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "cuda_check.h"
#include "device_guard.h"
#include "launch_hold.h"

namespace placebench::kernels {
namespace {

constexpr long long kHoldMaxCycles = 20'000'000'000LL;  // ~10 s at 2 GHz: a deadline, never reached normally

// Two words of mapped pinned memory shared with the hold kernel (launch_hold.h).
struct HoldWords {
  int* host = nullptr;
  int* device = nullptr;
  HoldWords() {
    PB_CUDA_CALL(cudaHostAlloc(reinterpret_cast<void**>(&host), 2 * sizeof(int), cudaHostAllocMapped));
    reset();
    PB_CUDA_CALL(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
  }
  ~HoldWords() { PB_CUDA_CALL_NOEXCEPT(cudaFreeHost(host)); }
  HoldWords(const HoldWords&) = delete;
  HoldWords& operator=(const HoldWords&) = delete;
  void reset() {
    volatile int* w = host;
    w[detail::kHoldRelease] = 0;
    w[detail::kHoldTimedOut] = 0;
  }
  void release() { static_cast<volatile int*>(host)[detail::kHoldRelease] = 1; }
  int timed_out() const { return static_cast<volatile int*>(host)[detail::kHoldTimedOut]; }
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
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

double elapsed_s(cudaEvent_t from, cudaEvent_t to) {
  PB_CUDA_CALL(cudaEventSynchronize(to));
  float ms = 0;
  PB_CUDA_CALL(cudaEventElapsedTime(&ms, from, to));
  return static_cast<double>(ms) * 1e-3;
}

void enqueue_copies(DeviceBuffer& dev, void* host, std::size_t bytes, int copies, CopyKind kind, cudaStream_t s) {
  for (int i = 0; i < copies; ++i) {
    if (kind == CopyKind::kHostToDevice)
      PB_CUDA_CALL(cudaMemcpyAsync(dev.data(), host, bytes, cudaMemcpyHostToDevice, s));
    else
      PB_CUDA_CALL(cudaMemcpyAsync(host, dev.data(), bytes, cudaMemcpyDeviceToHost, s));
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One hold of at most kMaxCopiesPerHold copies: seconds between the events around them.
double held_copies(HoldWords& words, DeviceBuffer& dev, void* host, std::size_t bytes, int copies, CopyKind kind,
                   cudaStream_t s) {
  EventPair ev;
  words.reset();
  detail::launch_hold(words.device, kHoldMaxCycles, s);
  PB_CUDA_CALL(cudaGetLastError());
  PB_CUDA_CALL(cudaEventRecord(ev.start, s));
  enqueue_copies(dev, host, bytes, copies, kind, s);
  PB_CUDA_CALL(cudaEventRecord(ev.stop, s));
  words.release();
  double t = elapsed_s(ev.start, ev.stop);
  check_hold_released(words.timed_out(), copies, bytes);
  return t;
}

// Both directions behind one hold on the H2D stream; the D2H stream waits on the H2D stream's start
// event (nvbandwidth's alignment), so both start together; the hold ends when the slower one does.
double held_copies_bidir(HoldWords& words, DeviceBuffer& to_device, void* host_src, DeviceBuffer& from_device, void* host_dst,
                         std::size_t bytes, int copies, cudaStream_t h2d, cudaStream_t d2h) {
  EventPair a, b;
  words.reset();
  detail::launch_hold(words.device, kHoldMaxCycles, h2d);
  PB_CUDA_CALL(cudaGetLastError());
  PB_CUDA_CALL(cudaEventRecord(a.start, h2d));
  PB_CUDA_CALL(cudaStreamWaitEvent(d2h, a.start, 0));
  enqueue_copies(to_device, host_src, bytes, copies, CopyKind::kHostToDevice, h2d);
  enqueue_copies(from_device, host_dst, bytes, copies, CopyKind::kDeviceToHost, d2h);
  PB_CUDA_CALL(cudaEventRecord(a.stop, h2d));
  PB_CUDA_CALL(cudaEventRecord(b.stop, d2h));
  words.release();
  double t = std::max(elapsed_s(a.start, a.stop), elapsed_s(a.start, b.stop));
  check_hold_released(words.timed_out(), 2 * copies, bytes);
  return t;
}

}  // namespace

double timed_copy_batch(DeviceBuffer& dev, void* host, std::size_t bytes, int copies, CopyKind kind, Stream& stream,
                        CopyTiming timing) {
  detail::DeviceGuard guard(dev.device());
  cudaStream_t s = stream.native_handle();
  if (timing == CopyTiming::kHostTimer) {
    PB_CUDA_CALL(cudaStreamSynchronize(s));  // nothing earlier inside the time
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < copies; ++i) {
      enqueue_copies(dev, host, bytes, 1, kind, s);
      PB_CUDA_CALL(cudaStreamSynchronize(s));
    }
    return seconds_since(t0);
  }
  HoldWords words;
  double total = 0;
  for (int n : copies_per_hold(copies)) total += held_copies(words, dev, host, bytes, n, kind, s);
  return total;
}

double timed_copy_batch_bidir(DeviceBuffer& to_device, const void* host_src, DeviceBuffer& from_device, void* host_dst,
                              std::size_t bytes, int copies, Stream& h2d, Stream& d2h, CopyTiming timing) {
  detail::DeviceGuard guard(to_device.device());
  void* src = const_cast<void*>(host_src);
  cudaStream_t up = h2d.native_handle(), down = d2h.native_handle();
  if (timing == CopyTiming::kHostTimer) {
    PB_CUDA_CALL(cudaStreamSynchronize(up));
    PB_CUDA_CALL(cudaStreamSynchronize(down));
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < copies; ++i) {
      enqueue_copies(to_device, src, bytes, 1, CopyKind::kHostToDevice, up);
      enqueue_copies(from_device, host_dst, bytes, 1, CopyKind::kDeviceToHost, down);
    }
    PB_CUDA_CALL(cudaStreamSynchronize(up));
    PB_CUDA_CALL(cudaStreamSynchronize(down));
    return seconds_since(t0);
  }
  HoldWords words;
  double total = 0;
  for (int n : copies_per_hold(copies))
    total += held_copies_bidir(words, to_device, src, from_device, host_dst, bytes, n, up, down);
  return total;
}

void fresh_device_context(int device) {
  PB_CUDA_CALL(cudaSetDevice(device));
  PB_CUDA_CALL(cudaDeviceReset());
  PB_CUDA_CALL(cudaSetDevice(device));
  PB_CUDA_CALL(cudaFree(nullptr));  // creates the context now, on this thread
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
