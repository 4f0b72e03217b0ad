// Status agreement and quiet ranks for MPI subcommands (see mpi_command.h).
#include "placebench/harness/collectives_driver/mpi_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "placebench/collectives/watchdog.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/units.h"

namespace placebench::harness {
namespace {
int g_saved_stderr = -1;
}

void quiet_stderr_unless_rank0() {
  if (collectives::launcher_rank() == 0 || g_saved_stderr >= 0) return;
  std::cerr.flush();
  g_saved_stderr = dup(2);
  collectives::set_stall_report_fd(g_saved_stderr >= 0 ? g_saved_stderr : 2);  // a stalled job is said by every rank
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, 2);
    close(null_fd);
  }
}

void restore_stderr() {
  if (g_saved_stderr < 0) return;
  std::cerr.flush();
  dup2(g_saved_stderr, 2);
  collectives::set_stall_report_fd(2);
  close(g_saved_stderr);
  g_saved_stderr = -1;
}

int check_before_mpi(const std::string& command, const std::string& stall_timeout, const std::function<void()>& check,
                     double& stall_s) {
  restore_stderr();
  return run_local([&] {
    check();
    stall_s = stall_timeout_s(stall_timeout);
    if (!collectives::mpi_built())
      throw InputError("placebench " + command + " needs the MPI backend: rebuild with PLACEBENCH_ENABLE_MPI=ON");
    return 0;
  });
}

RankIdentity rank_identity(const collectives::MpiSession& session) {
  return {session.rank(), session.local_rank(), session.local_size(), local_host_name()};
}

int run_local(const std::function<int()>& action, bool quiet_on_other_ranks) {
  std::string msg;
  int status = 0;
  try {
    return action();
  } catch (const InputError& e) {
    msg = std::string("placebench: ") + e.what();
    status = kExitBadInput;
  } catch (const std::exception& e) {
    msg = std::string("placebench: error: ") + e.what();
    status = kExitFailed;
  }
  if (!quiet_on_other_ranks || collectives::launcher_rank() == 0) std::cerr << msg << "\n";
  return status;
}

int run_setup_agreed(collectives::MpiSession& session, const std::function<void()>& setup) {
  int status = 0;
  std::string msg;
  try {
    setup();
  } catch (const InputError& e) {
    status = kExitBadInput;
    msg = std::string("placebench: ") + e.what();
  } catch (const std::exception& e) {
    status = kExitFailed;
    msg = std::string("placebench: error: ") + e.what();
  }
  int agreed = session.agree_max(status);
  if (agreed == 0) return 0;
  std::vector<std::string> all = session.gather_strings(msg, 0);
  if (session.rank() == 0)
    for (std::size_t r = 0; r < all.size(); ++r)
      if (!all[r].empty()) {
        std::cerr << all[r] << (r == 0 ? "" : " (rank " + std::to_string(r) + ")") << "\n";
        break;
      }
  return agreed;
}

double stall_timeout_s(const std::string& option) {
  const char* env = std::getenv("PLACEBENCH_STALL_TIMEOUT");
  std::string where = !option.empty() ? "--stall-timeout" : "PLACEBENCH_STALL_TIMEOUT";
  std::string text = !option.empty() ? option : env && *env ? env : "";
  if (text.empty()) return collectives::StallTimeout::kDefaultS;
  double s = parse_duration_s(text, where);
  if (!(s > 0) || s > collectives::StallTimeout::kMaxS)
    throw InputError(where + " " + text + ": must be more than 0 and at most 1h (how long an MPI wait may make no progress)");
  return s;
}

void check_not_single_rank(int nranks, const std::string& command, bool allowed) {
  if (nranks > 1 || allowed) return;
  throw InputError(command + ": this job has 1 rank, so nothing is measured between ranks; launch it under mpirun (mpirun -np N placebench " +
                   command + " ...), or pass --allow-single-rank to run one rank on purpose");
}

void abort_job(collectives::MpiSession& session, const std::string& what) {
  std::cerr << "placebench: error: " << what << " (rank " << session.rank() << ")\n";
  std::cerr.flush();
  session.abort(kExitFailed);
}

}  // namespace placebench::harness
