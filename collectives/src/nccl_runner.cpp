// The NCCL backend of the benchmark: device buffers on the rank's GPU, one CUDA stream, a non-blocking
// communicator bootstrapped over MPI (rank 0's ncclGetUniqueId broadcast with MPI_Bcast). Nothing waits
// without a deadline (comm_wait.h): initialisation, every call's enqueue and every wait poll the
// communicator's asynchronous error and the stream until kNcclTimeoutS, then ncclCommAbort and fail.
// Copies between host and device run on the runner's own stream, never the legacy default stream.
// Timing: a CUDA event recorded on the stream before a block and one after it, the stream waited for
// (with the deadline), and cudaEventElapsedTime: device time of the block, as nccl-tests' per-iteration
// mode measures it; the block/median reduction is the backends' shared host code (block_timing.h).
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "runner.h"
#if PLACEBENCH_HAVE_NCCL && PLACEBENCH_HAVE_MPI
#include <cuda_runtime_api.h>
#include <mpi.h>

#include "mpi_call.h"
#include "nccl_comm.h"
#include "placebench/kernels/device_buffer.h"
#endif

namespace placebench::collectives::detail {

#if PLACEBENCH_HAVE_NCCL && PLACEBENCH_HAVE_MPI
namespace {

// Longest wait for one step (initialisation, a call's enqueue, a wait): generous, it only ends a hang.
constexpr double kNcclTimeoutS = 300;

// A CUDA event with timing, on the current device; destroyed without throwing.
class TimingEvent {
 public:
  TimingEvent() { cuda_check(cudaEventCreateWithFlags(&event_, cudaEventDefault), "cudaEventCreate"); }
  ~TimingEvent() {
    if (event_) (void)cudaEventDestroy(event_);
  }
  TimingEvent(const TimingEvent&) = delete;
  TimingEvent& operator=(const TimingEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class NcclRunner final : public Runner {
 public:
  NcclRunner(MpiSession& session, int gpu, std::size_t bytes)
      : gpu_(gpu), stream_(gpu), send_(bytes, gpu), recv_(bytes, gpu), comm_handle_(&comm_, stream_.native_handle()) {
    const NcclApi& nccl = nccl_api();
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (session.rank() == 0) PB_NCCL_CALL(nccl.ncclGetUniqueId(&id));
    PB_MPI_CALL(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
    ScopedDevice on(gpu_);
    ncclConfig_t config = nonblocking_config();
    PB_NCCL_CALL_ASYNC(nccl.ncclCommInitRankConfig(&comm_, session.size(), id, session.rank(), &config));
    wait_comm_ready(comm_handle_, kNcclTimeoutS, clock_, "ncclCommInitRankConfig");
  }
  ~NcclRunner() override {
    if (comm_) release_comm(comm_handle_, kNcclTimeoutS, clock_);
  }
  Backend backend() const override { return Backend::kNccl; }
  void* send_buffer() override { return send_.data(); }
  void* recv_buffer() override { return recv_.data(); }
  void upload(void* dst, const void* host, std::size_t bytes) override {
    ScopedDevice on(gpu_);
    cuda_check(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, stream_.native_handle()), "cudaMemcpyAsync (to device)");
    wait_stream_done(comm_handle_, kNcclTimeoutS, clock_, "copy to the device");
  }
  void download(void* host, const void* src, std::size_t bytes) override {
    ScopedDevice on(gpu_);
    cuda_check(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, stream_.native_handle()), "cudaMemcpyAsync (to host)");
    wait_stream_done(comm_handle_, kNcclTimeoutS, clock_, "copy to the host");
  }
  void run_n(const CollectiveOp& op, OpCall call, int n) override {
    if (!comm_) throw std::logic_error("NcclRunner::run_n after the communicator was aborted");
    call.comm = comm_;
    call.stream = stream_.native_handle();
    const std::string what = std::string(collective_name(op.id())) + " (enqueue)";
    for (int i = 0; i < n; ++i) {
      op.run_nccl(call);
      // Non-blocking communicator: the call may return ncclInProgress; no NCCL call until it is enqueued.
      wait_comm_ready(comm_handle_, kNcclTimeoutS, clock_, what);
    }
  }
  void wait() override { wait_stream_done(comm_handle_, kNcclTimeoutS, clock_, "NCCL collective"); }
  void begin_timing() override {
    ScopedDevice on(gpu_);
    if (!start_) {
      start_ = std::make_unique<TimingEvent>();
      stop_ = std::make_unique<TimingEvent>();
    }
    cuda_check(cudaEventRecord(start_->get(), stream_.native_handle()), "cudaEventRecord (block start)");
  }
  double end_timing_s() override {
    if (!start_) throw std::logic_error("NcclRunner::end_timing_s without begin_timing");
    ScopedDevice on(gpu_);
    cuda_check(cudaEventRecord(stop_->get(), stream_.native_handle()), "cudaEventRecord (block end)");
    wait();
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_->get(), stop_->get()), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  int gpu_;
  kernels::Stream stream_;
  kernels::DeviceBuffer send_, recv_;
  ncclComm_t comm_ = nullptr;
  NcclComm comm_handle_;
  PollClock clock_ = PollClock::steady();
  std::unique_ptr<TimingEvent> start_, stop_;  // made on first use, on the runner's device
};

}  // namespace

std::unique_ptr<Runner> make_nccl_runner(MpiSession& session, int gpu, std::size_t buffer_bytes) {
  return std::make_unique<NcclRunner>(session, gpu, buffer_bytes);
}
#else
std::unique_ptr<Runner> make_nccl_runner(MpiSession&, int, std::size_t) {
  throw std::runtime_error("the NCCL backend is not built into this binary (configure with CUDA and NCCL headers)");
}
#endif

}  // namespace placebench::collectives::detail
