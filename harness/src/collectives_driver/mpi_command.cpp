// Status agreement and quiet ranks for MPI subcommands (see mpi_command.h).
#include "placebench/harness/collectives_driver/mpi_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <iostream>

#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {
int g_saved_stderr = -1;
}

void quiet_stderr_unless_rank0() {
  if (collectives::launcher_rank() == 0 || g_saved_stderr >= 0) return;
  std::cerr.flush();
  g_saved_stderr = dup(2);
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
  close(g_saved_stderr);
  g_saved_stderr = -1;
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

void abort_job(collectives::MpiSession& session, const std::string& what) {
  std::cerr << "placebench: error: " << what << " (rank " << session.rank() << ")\n";
  std::cerr.flush();
  session.abort(kExitFailed);
}

}  // namespace placebench::harness
