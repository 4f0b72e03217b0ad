// One MPI process's view of the job: initialisation, rank, local rank, host, and the few collective
// helpers the drivers need (status agreement, gathers). No MPI header leaks out of collectives; in
// builds without MPI every constructor throws MpiNotBuilt. Every blocking helper here, MPI_Init's
// setup and MPI_Finalize run under the session's watchdog (watchdog.h): a peer that stops making
// progress aborts the job after the stall timeout instead of leaving this rank waiting forever.
#pragma once
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "placebench/collectives/watchdog.h"

namespace placebench::collectives {

struct MpiNotBuilt : std::runtime_error {
  MpiNotBuilt() : std::runtime_error("the MPI backend is not built into this binary (configure with PLACEBENCH_ENABLE_MPI=ON)") {}
};

bool mpi_built();

// Where the watchdog's message goes (default 2): a rank whose stderr is quieted (only rank 0 speaks)
// still says that it aborts the job because a peer stalled.
void set_stall_report_fd(int fd);

// The rank the launcher gave this process (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID),
// readable before MPI_Init; 0 when not launched by MPI.
int launcher_rank();

class MpiSession {
 public:
  // MPI_Init_thread(FUNNELED) unless MPI is already initialised. A singleton (no mpirun) is one rank.
  // stall_timeout_s: how long any wait of this rank may make no progress before the job is aborted
  // ("rank R: <what> did not finish within Ns; a peer is stalled or frozen" on stderr, then MPI_Abort).
  explicit MpiSession(double stall_timeout_s = StallTimeout::kDefaultS);
  // MPI_Finalize, unless finalize() ran or the process aborts.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the processes of this host
  int local_size() const { return local_size_; }
  const std::string& host() const { return host_; }

  void barrier();
  // Every rank passes its status; all get the largest (so all ranks agree to stop together).
  int agree_max(int status);
  double sum(double value);
  double max(double value);
  // Rank `root` gets every rank's string (index = rank); others get an empty vector.
  std::vector<std::string> gather_strings(const std::string& mine, int root);
  // Rank `root` gets every rank's values concatenated (all ranks pass the same length).
  std::vector<double> gather_doubles(const std::vector<double>& mine, int root);
  // Broadcast of a double from root.
  double broadcast(double value, int root);
  // Root's string on every rank.
  std::string broadcast_string(const std::string& value, int root);
  // A barrier that does not spin a core while it waits (MPI_Ibarrier, tested every millisecond), so
  // ranks waiting for rank 0 do not disturb what it measures. False when `timeout` ran out first (the
  // barrier cannot be withdrawn: the caller should abort the job).
  bool idle_barrier(std::chrono::milliseconds timeout);

  // Ends MPI now (MPI_Finalize); the destructor then does nothing.
  void finalize();
  // MPI_Abort(MPI_COMM_WORLD, code): the launcher kills every rank.
  [[noreturn]] void abort(int code);

  // Arms the watchdog around a block of MPI work (see Watchdog::watch): every wait that is not one of
  // this session's helpers (collective calls, point-to-point, communicator setup) runs inside one.
  Watchdog::Watch watch(std::string what, double per_call_s = 0);
  double stall_timeout_s() const;

  // The MPI_Comm of the world, as an opaque pointer to an MPI_Comm (for collectives' own sources).
  void* world_handle() const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::string host_;
  // Used only where the MPI backend is built.
  [[maybe_unused]] bool finalized_ = false;
  [[maybe_unused]] bool owns_ = false;
  std::unique_ptr<Watchdog> watchdog_;
};

}  // namespace placebench::collectives
