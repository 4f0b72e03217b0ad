// The NCCL gang transport: buffers on each of the rank's GPUs and a stream; per attempt the reporter
// sends a fresh ncclUniqueId to every rank (point-to-point, so a missing rank cannot hold up the others'
// receipt), each rank starts a non-blocking ncclCommInitRankConfig (config.blocking = 0) and polls
// ncclCommGetAsyncError; an attempt given up is ncclCommAbort'ed, which returns without waiting for the
// peers. Steps are ncclAllReduce on the stream, polled with cudaStreamQuery. Release finalises, polls
// until quiescent within the deadline and destroys, or aborts (comm_wait.h). Every attempt's unique id
// stays alive until the transport ends: a freed MPI_Isend may still read it. Every call that needs the
// rank's GPU current makes it current for its scope only (ScopedDevice) and restores the caller's
// device. Needs a GPU to run.
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport.h"
#if PLACEBENCH_HAVE_NCCL && PLACEBENCH_HAVE_MPI
#include <cuda_runtime_api.h>
#include <mpi.h>

#include "../mpi_call.h"
#include "../nccl_comm.h"
#include "placebench/kernels/device_buffer.h"
#endif

namespace placebench::collectives::detail {

#if PLACEBENCH_HAVE_NCCL && PLACEBENCH_HAVE_MPI
namespace {

constexpr int kIdTag = 31100;  // + attempt

class NcclGangTransport final : public GangTransport {
 public:
  NcclGangTransport(MpiSession& session, const GangConfig& cfg)
      : session_(session), cfg_(cfg), nccl_(nccl_api()), reporter_(gang_reporter(cfg, session.size())) {}
  ~NcclGangTransport() override {
    if (comm_) nccl_.ncclCommAbort(comm_);
  }
  void acquire() override {
    for (int g = 0; g < cfg_.gpus_per_rank; ++g) buffers_.emplace_back(cfg_.step_bytes, cfg_.gpu + g);
    stream_ = std::make_unique<kernels::Stream>(cfg_.gpu);  // both restore the caller's device
  }
  void release() override {
    if (comm_) {
      // Finalize is collective; a failed attempt was aborted already (comm_ is null then).
      NcclComm handle(&comm_, stream_ ? stream_->native_handle() : nullptr);
      ScopedDevice device(cfg_.gpu);
      release_comm(handle, cfg_.deadline_s, PollClock::steady());
    }
    stream_.reset();
    buffers_.clear();
  }
  void begin_join(int attempt) override {
    attempt_ = attempt;
    std::memset(&id_, 0, sizeof id_);
    id_received_ = false;
    if (session_.rank() == reporter_) {
      PB_NCCL_CALL(nccl_.ncclGetUniqueId(&id_));
      const ncclUniqueId& sent = sent_ids_.emplace_back(id_);  // stable: a deque never moves its elements
      for (int r = 0; r < session_.size(); ++r) {
        if (r == reporter_) continue;
        MPI_Request req;
        PB_MPI_CALL(MPI_Isend(&sent, sizeof sent, MPI_BYTE, r, kIdTag + attempt, MPI_COMM_WORLD, &req));
        MPI_Request_free(&req);  // eager and small; completion is not needed
      }
      start_init();
    } else {
      PB_MPI_CALL(MPI_Irecv(&id_, sizeof id_, MPI_BYTE, reporter_, kIdTag + attempt, MPI_COMM_WORLD, &id_req_));
    }
  }
  bool poll_join() override {
    if (!comm_) {
      int done = 0;
      PB_MPI_CALL(MPI_Test(&id_req_, &done, MPI_STATUS_IGNORE));
      if (!done) return false;
      start_init();
    }
    ncclResult_t state = ncclInProgress;
    PB_NCCL_CALL_ASYNC(nccl_.ncclCommGetAsyncError(comm_, &state));
    PB_NCCL_CALL_ASYNC(state);
    return state == ncclSuccess;
  }
  void abandon() override {
    if (!comm_ && id_req_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&id_req_);
      MPI_Wait(&id_req_, MPI_STATUS_IGNORE);
    }
    if (comm_) nccl_.ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  void begin_step() override {
    ScopedDevice device(cfg_.gpu);
    PB_NCCL_CALL_ASYNC(nccl_.ncclAllReduce(buffers_.front().data(), buffers_.front().data(), cfg_.step_bytes / sizeof(float),
                                           ncclFloat32, ncclSum, comm_, stream_->native_handle()));
  }
  bool poll_step() override {
    ncclResult_t state = ncclSuccess;
    PB_NCCL_CALL_ASYNC(nccl_.ncclCommGetAsyncError(comm_, &state));
    PB_NCCL_CALL_ASYNC(state);
    cudaError_t q = cudaStreamQuery(stream_->native_handle());
    if (q == cudaErrorNotReady) return false;
    cuda_check(q, "cudaStreamQuery");
    return state == ncclSuccess;
  }
  void post_catch_up() override {}
  bool poll_drained() override { return true; }

 private:
  void start_init() {
    ScopedDevice device(cfg_.gpu);  // NCCL binds the communicator to the device current here
    ncclConfig_t config = nonblocking_config();
    PB_NCCL_CALL_ASYNC(nccl_.ncclCommInitRankConfig(&comm_, session_.size(), id_, session_.rank(), &config));
  }

  MpiSession& session_;
  GangConfig cfg_;
  const NcclApi& nccl_;
  int reporter_;
  int attempt_ = 0;
  ncclUniqueId id_{};
  std::deque<ncclUniqueId> sent_ids_;  // the reporter's, one per attempt, read by freed MPI_Isends
  bool id_received_ = false;
  MPI_Request id_req_ = MPI_REQUEST_NULL;
  ncclComm_t comm_ = nullptr;
  std::vector<kernels::DeviceBuffer> buffers_;
  std::unique_ptr<kernels::Stream> stream_;
};

}  // namespace

std::unique_ptr<GangTransport> make_nccl_gang_transport(MpiSession& session, const GangConfig& config) {
  return std::make_unique<NcclGangTransport>(session, config);
}
#else
std::unique_ptr<GangTransport> make_nccl_gang_transport(MpiSession&, const GangConfig&) {
  throw std::runtime_error("the NCCL backend is not built into this binary (configure with CUDA and NCCL headers)");
}
#endif

}  // namespace placebench::collectives::detail
