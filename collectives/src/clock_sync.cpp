// Clock offsets to rank 0 by ping-pong, and when this process started (see clock_sync.h). Ranks are
// measured one after another so that rank 0 answers each promptly.
#include "placebench/collectives/clock_sync.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "mpi_call.h"
#endif

namespace placebench::collectives {

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double process_start_steady_s() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = stat.rfind(')');  // the command name may hold spaces and parentheses: fields follow the last ')'
  if (close != std::string::npos) {
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i)
      if (i == 22) {
        double start = std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
        double now = steady_now_s();
        if (start <= now && now - start < 3600) return start;
      }
  }
  return steady_now_s();
}

ClockSync sync_clock_to_rank0(MpiSession& session, int rounds) {
  ClockSync out;
#if PLACEBENCH_HAVE_MPI
  constexpr int kTag = 31001;
  MPI_Comm world = MPI_COMM_WORLD;
  Watchdog::Watch watch = session.watch("clock sync with rank 0 (MPI_Send, MPI_Recv)");
  for (int r = 1; r < session.size(); ++r) {
    watch.progress();
    for (int i = 0; i < rounds; ++i) {
      if (session.rank() == 0) {
        double ping = 0;
        PB_MPI_CALL(MPI_Recv(&ping, 1, MPI_DOUBLE, r, kTag, world, MPI_STATUS_IGNORE));
        double t0 = steady_now_s();
        PB_MPI_CALL(MPI_Send(&t0, 1, MPI_DOUBLE, r, kTag, world));
      } else if (session.rank() == r) {
        double t1 = steady_now_s(), t0 = 0;
        PB_MPI_CALL(MPI_Send(&t1, 1, MPI_DOUBLE, 0, kTag, world));
        PB_MPI_CALL(MPI_Recv(&t0, 1, MPI_DOUBLE, 0, kTag, world, MPI_STATUS_IGNORE));
        double t2 = steady_now_s();
        if (i == 0 || t2 - t1 < out.rtt_s) {
          out.rtt_s = t2 - t1;
          out.offset_s = t0 - (t1 + t2) / 2;
        }
      }
    }
  }
#else
  (void)session;
  (void)rounds;
#endif
  return out;
}

}  // namespace placebench::collectives
