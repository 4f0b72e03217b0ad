// Running a subcommand on every rank of an MPI job: only rank 0 speaks; bad input is found before MPI
// starts (every rank parses the same arguments, so all exit 2 together); setup errors are agreed on by
// all ranks before any collective work; a failure after that aborts the job rather than leave ranks
// waiting in a collective.
#pragma once
#include <functional>
#include <string>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/collectives_driver/rank_placement.h"

namespace placebench::harness {

// For CLI11's preparse callback: ranks other than 0 (by the launcher's environment) stop writing to
// stderr, so a bad option is reported once. restore_stderr() undoes it once parsing succeeded.
void quiet_stderr_unless_rank0();
void restore_stderr();

// Runs action on this rank, maps InputError to 2 and other exceptions to 1, prints the message (rank 0
// only when quiet_on_other_ranks), and returns the status. For work done before MPI starts.
int run_local(const std::function<int()>& action, bool quiet_on_other_ranks = true);

// Runs setup on every rank, then all ranks agree on the worst status (0 ok, 1 failed, 2 bad input);
// rank 0 prints the message of the lowest failing rank. Returns the agreed status.
int run_setup_agreed(collectives::MpiSession& session, const std::function<void()>& setup);

// The stall timeout of the job's watchdog (collectives/watchdog.h): `option` (--stall-timeout's text)
// when given, else $PLACEBENCH_STALL_TIMEOUT, else 60 s. Throws InputError unless 0 < it <= 1 h.
// Called before MPI starts, so bad input ends every rank with exit 2.
double stall_timeout_s(const std::string& option);

// `collective` and `gang` measure between ranks: a job of one rank (mpirun forgotten) is bad input
// unless --allow-single-rank asked for it.
void check_not_single_rank(int nranks, const std::string& command, bool allowed);

// The start of a subcommand that runs on every rank (`collective`, `gang`): stderr restored, then `check`
// (the options, identical on every rank), the stall timeout (`stall_timeout`, as stall_timeout_s) and the
// MPI backend checked before MPI starts, so that bad input ends every rank with exit 2 together. Returns
// the status (0: start the MpiSession with stall_s).
int check_before_mpi(const std::string& command, const std::string& stall_timeout, const std::function<void()>& check,
                     double& stall_s);

// This rank in the session, on the host every record names (local_host_name).
RankIdentity rank_identity(const collectives::MpiSession& session);

// Prints "placebench: error: <what> (rank R)" and aborts the MPI job with status 1.
[[noreturn]] void abort_job(collectives::MpiSession& session, const std::string& what);

}  // namespace placebench::harness
