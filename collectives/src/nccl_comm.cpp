// NcclComm and the CUDA helpers of the NCCL backend (see nccl_comm.h).
#include "nccl_comm.h"

#if PLACEBENCH_HAVE_NCCL
#include <stdexcept>

namespace placebench::collectives::detail {

void cuda_check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(rc));
}

ScopedDevice::ScopedDevice(int device) {
  cuda_check(cudaGetDevice(&previous_), "cudaGetDevice");
  cuda_check(cudaSetDevice(device), "cudaSetDevice");
}

ScopedDevice::~ScopedDevice() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

ncclConfig_t nonblocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

namespace {
CommState from_nccl(ncclResult_t rc) {
  return rc == ncclSuccess ? CommState::kDone : rc == ncclInProgress ? CommState::kInProgress : CommState::kError;
}
}  // namespace

CommState NcclComm::comm_state() {
  if (!*comm_) return CommState::kError;
  ncclResult_t state = ncclInProgress;
  ncclResult_t rc = nccl_api().ncclCommGetAsyncError(*comm_, &state);
  if (rc != ncclSuccess) state = rc;
  if (from_nccl(state) == CommState::kError) error_ = nccl_api().ncclGetErrorString(state);
  return from_nccl(state);
}

CommState NcclComm::stream_state() {
  cudaError_t q = cudaStreamQuery(stream_);
  if (q == cudaErrorNotReady) return CommState::kInProgress;
  if (q == cudaSuccess) return CommState::kDone;
  error_ = std::string("CUDA stream: ") + cudaGetErrorString(q);
  return CommState::kError;
}

CommState NcclComm::finalize() {
  if (!*comm_) return CommState::kError;
  ncclResult_t rc = nccl_api().ncclCommFinalize(*comm_);
  if (from_nccl(rc) == CommState::kError) error_ = nccl_api().ncclGetErrorString(rc);
  return from_nccl(rc);
}

void NcclComm::destroy() {
  if (*comm_) nccl_api().ncclCommDestroy(*comm_);
  *comm_ = nullptr;
}

void NcclComm::abort() {
  if (*comm_) nccl_api().ncclCommAbort(*comm_);
  *comm_ = nullptr;
}

std::string NcclComm::last_error() {
  const char* last = *comm_ ? nccl_api().ncclGetLastError(*comm_) : nullptr;
  std::string out = error_;
  if (last && *last) out += (out.empty() ? "" : "; ") + std::string(last);
  return out;
}

}  // namespace placebench::collectives::detail
#endif
