// Internal: what the gang schedule needs from a backend. Every call returns promptly; waiting is the
// schedule's job (it polls against its deadlines).
#pragma once
#include <memory>

#include "placebench/collectives/gang.h"

namespace placebench::collectives::detail {

class GangTransport {
 public:
  virtual ~GangTransport() = default;
  // Resources of a ready rank: buffers (NCCL: on each of its GPUs, and a stream).
  virtual void acquire() = 0;
  virtual void release() = 0;
  // Starts joining attempt a (MPI: a non-blocking barrier on the attempt's communicator; NCCL: the
  // unique id from the reporter, then a non-blocking ncclCommInitRankConfig).
  virtual void begin_join(int attempt) = 0;
  // True once the rendezvous of the current attempt is complete; throws on a backend error.
  virtual bool poll_join() = 0;
  // Gives the current attempt up (NCCL: ncclCommAbort).
  virtual void abandon() = 0;
  // Starts one step (an allreduce on the joined communicator); poll_step() is true when it is done.
  virtual void begin_step() = 0;
  virtual bool poll_step() = 0;
  // Posts whatever this rank never joined, so other ranks' outstanding requests can complete; then
  // polls until all of this rank's requests are done. Returns true when they are.
  virtual void post_catch_up() = 0;
  virtual bool poll_drained() = 0;
};

std::unique_ptr<GangTransport> make_mpi_gang_transport(MpiSession& session, const GangConfig& config);
std::unique_ptr<GangTransport> make_nccl_gang_transport(MpiSession& session, const GangConfig& config);

}  // namespace placebench::collectives::detail
