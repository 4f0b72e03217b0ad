// The NCCL backend of the benchmark: device buffers on the rank's GPU, one CUDA stream, a blocking
// communicator bootstrapped over MPI (rank 0's ncclGetUniqueId broadcast with MPI_Bcast).
#include <cstring>
#include <stdexcept>
#include <string>

#include "runner.h"
#if PLACEBENCH_HAVE_NCCL && PLACEBENCH_HAVE_MPI
#include <cuda_runtime_api.h>
#include <mpi.h>

#include "mpi_call.h"
#include "nccl_api.h"
#include "placebench/kernels/device_buffer.h"
#endif

namespace placebench::collectives::detail {

#if PLACEBENCH_HAVE_NCCL && PLACEBENCH_HAVE_MPI
namespace {

void cuda_check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(rc));
}

class NcclRunner final : public Runner {
 public:
  NcclRunner(MpiSession& session, int gpu, std::size_t bytes)
      : stream_(gpu), send_(bytes, gpu), recv_(bytes, gpu) {
    const NcclApi& nccl = nccl_api();
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (session.rank() == 0) PB_NCCL_CALL(nccl.ncclGetUniqueId(&id));
    PB_MPI_CALL(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
    cuda_check(cudaSetDevice(gpu), "cudaSetDevice");
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    PB_NCCL_CALL(nccl.ncclCommInitRankConfig(&comm_, session.size(), id, session.rank(), &config));
  }
  ~NcclRunner() override {
    if (comm_) nccl_api().ncclCommDestroy(comm_);
  }
  Backend backend() const override { return Backend::kNccl; }
  void* send_buffer() override { return send_.data(); }
  void* recv_buffer() override { return recv_.data(); }
  void upload(void* dst, const void* host, std::size_t bytes) override {
    cuda_check(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (to device)");
  }
  void download(void* host, const void* src, std::size_t bytes) override {
    cuda_check(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (to host)");
  }
  void run(const CollectiveOp& op, OpCall call) override {
    call.comm = comm_;
    call.stream = stream_.native_handle();
    op.run_nccl(call);
  }
  void wait() override { stream_.synchronize(); }

 private:
  kernels::Stream stream_;
  kernels::DeviceBuffer send_, recv_;
  ncclComm_t comm_ = nullptr;
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
