// Internal: what the benchmark needs from a backend — the call, a sync, and buffers it can run on.
#pragma once
#include <cstddef>
#include <memory>

#include "ops/op.h"
#include "placebench/collectives/mpi_session.h"

namespace placebench::collectives::detail {

class Runner {
 public:
  virtual ~Runner() = default;
  virtual Backend backend() const = 0;
  // The backend's send and receive buffers, each at least the bytes given to make_*_runner.
  virtual void* send_buffer() = 0;
  virtual void* recv_buffer() = 0;
  // Copies between host memory and a backend buffer (memcpy for MPI; the same pointer is a no-op).
  virtual void upload(void* dst, const void* host, std::size_t bytes) = 0;
  virtual void download(void* host, const void* src, std::size_t bytes) = 0;
  // Issues n calls back to back (NCCL: enqueues them on the stream).
  virtual void run_n(const CollectiveOp& op, OpCall call, int n) = 0;
  // Returns when every issued call is complete on this rank.
  virtual void wait() = 0;
  // Timing of a block of calls, the same for both backends (block_timing.h): begin_timing() marks its
  // start (MPI: the host clock; NCCL: a CUDA event recorded on the stream), end_timing_s() waits for
  // every call issued since and returns the seconds between the marks (NCCL: cudaEventElapsedTime).
  virtual void begin_timing() = 0;
  virtual double end_timing_s() = 0;
};

// MPI: buffers are slices of the placed host memory. Before returning it exchanges a small and a large
// message with every peer, so no timed call pays for a lazily opened connection or protocol.
std::unique_ptr<Runner> make_mpi_runner(MpiSession& session, void* host, std::size_t buffer_bytes);
// NCCL: device buffers on `gpu`, a communicator over all ranks (unique id broadcast over MPI).
std::unique_ptr<Runner> make_nccl_runner(MpiSession& session, int gpu, std::size_t buffer_bytes);

}  // namespace placebench::collectives::detail
