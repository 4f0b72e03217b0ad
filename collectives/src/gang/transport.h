// Internal: what the gang schedule needs from a backend, and the way the timelines reach the reporter.
// Every call returns promptly; waiting is the schedule's job (it polls against its deadlines).
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "placebench/collectives/gang.h"

namespace placebench::collectives::detail {

class GangTransport {
 public:
  GangTransport();
  virtual ~GangTransport();
  GangTransport(const GangTransport&) = delete;
  GangTransport& operator=(const GangTransport&) = delete;

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

  // Timelines (a few doubles a rank) go to the reporter by MPI point-to-point, whatever the backend: a
  // receive can be cancelled, so the reporter can stop waiting for a rank that never sends.
  // A rank other than the reporter sends its timeline; the send stays outstanding until delivered.
  void send_timeline(const std::vector<double>& timeline, int reporter);
  // True once this rank's timeline, if it sent one, has left (part of draining before MPI_Finalize).
  bool poll_timeline_sent();
  // The reporter posts a receive of own.size() doubles from every other rank; own is its own timeline.
  void receive_timelines(int nranks, int reporter, const std::vector<double>& own);
  // The reporter: true once every timeline has arrived.
  bool poll_timelines();
  // The reporter stops receiving: the timelines by rank, the reporter's own included; nullopt for a rank
  // whose timeline never arrived (its receive is cancelled).
  std::vector<std::optional<std::vector<double>>> take_timelines();

 private:
  struct Timelines;  // the buffers and MPI requests (timelines.cpp)
  std::unique_ptr<Timelines> timelines_;
};

std::unique_ptr<GangTransport> make_mpi_gang_transport(MpiSession& session, const GangConfig& config);
std::unique_ptr<GangTransport> make_nccl_gang_transport(MpiSession& session, const GangConfig& config);

}  // namespace placebench::collectives::detail
