// A non-blocking NCCL communicator and the stream its calls run on, as comm_wait.h's CommHandle, plus
// the CUDA helpers both NCCL files need. Only built with the NCCL and MPI backends.
#pragma once
#if PLACEBENCH_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include "comm_wait.h"
#include "nccl_api.h"

namespace placebench::collectives::detail {

// Throws std::runtime_error "<what> failed: <CUDA's message>" unless rc is cudaSuccess.
void cuda_check(cudaError_t rc, const char* what);

// Makes `device` current for a scope and restores the caller's device.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

// The NCCL config of every placebench communicator: non-blocking, so no call can hang the host.
ncclConfig_t nonblocking_config();

class NcclComm final : public CommHandle {
 public:
  NcclComm(ncclComm_t* comm, cudaStream_t stream) : comm_(comm), stream_(stream) {}
  CommState comm_state() override;
  CommState stream_state() override;
  CommState finalize() override;
  void destroy() override;
  void abort() override;  // sets *comm to null
  std::string last_error() override;

 private:
  ncclComm_t* comm_;
  cudaStream_t stream_;
  std::string error_;  // the last failing state, for last_error()
};

}  // namespace placebench::collectives::detail
#endif
