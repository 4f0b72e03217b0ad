// The timelines' way to the gang's reporter (see transport.h): MPI_Isend from each rank that joined,
// MPI_Irecv from every other rank on the reporter, polled until the reporter's deadline; receives that
// never completed are cancelled (MPI allows cancelling receives, not collectives). The sends stay
// outstanding until drain(), since a rank may finish before the reporter posts its receives.
#include <utility>

#include "transport.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "../mpi_call.h"
#endif

namespace placebench::collectives::detail {

namespace {
[[maybe_unused]] constexpr int kTimelineTag = 31002;  // used only where the MPI backend is built
}

struct GangTransport::Timelines {
  std::vector<double> sent;                   // this rank's timeline while it is being sent
  std::vector<std::vector<double>> received;  // by rank, on the reporter
  std::vector<bool> arrived;
#if PLACEBENCH_HAVE_MPI
  MPI_Request send = MPI_REQUEST_NULL;
  std::vector<MPI_Request> receives;  // by rank; MPI_REQUEST_NULL for the reporter's own
#endif
};

GangTransport::GangTransport() : timelines_(std::make_unique<Timelines>()) {}
GangTransport::~GangTransport() = default;

#if PLACEBENCH_HAVE_MPI
void GangTransport::send_timeline(const std::vector<double>& timeline, int reporter) {
  Timelines& t = *timelines_;
  t.sent = timeline;  // must outlive the send
  PB_MPI_CALL(MPI_Isend(t.sent.data(), static_cast<int>(t.sent.size()), MPI_DOUBLE, reporter, kTimelineTag, MPI_COMM_WORLD,
                        &t.send));
}

bool GangTransport::poll_timeline_sent() {
  Timelines& t = *timelines_;
  if (t.send == MPI_REQUEST_NULL) return true;
  int done = 0;
  MPI_Test(&t.send, &done, MPI_STATUS_IGNORE);  // completion sets the request to MPI_REQUEST_NULL
  return done != 0;
}

void GangTransport::receive_timelines(int nranks, int reporter, const std::vector<double>& own) {
  Timelines& t = *timelines_;
  auto n = static_cast<std::size_t>(nranks);
  t.received.assign(n, std::vector<double>(own.size()));
  t.arrived.assign(n, false);
  t.receives.assign(n, MPI_REQUEST_NULL);
  for (int r = 0; r < nranks; ++r)
    if (r != reporter)
      PB_MPI_CALL(MPI_Irecv(t.received[static_cast<std::size_t>(r)].data(), static_cast<int>(own.size()), MPI_DOUBLE, r,
                            kTimelineTag, MPI_COMM_WORLD, &t.receives[static_cast<std::size_t>(r)]));
  t.received[static_cast<std::size_t>(reporter)] = own;
  t.arrived[static_cast<std::size_t>(reporter)] = true;
}

bool GangTransport::poll_timelines() {
  Timelines& t = *timelines_;
  bool all = true;
  for (std::size_t i = 0; i < t.receives.size(); ++i) {
    if (t.arrived[i]) continue;
    int done = 0;
    PB_MPI_CALL(MPI_Test(&t.receives[i], &done, MPI_STATUS_IGNORE));
    t.arrived[i] = done != 0;
    all = all && t.arrived[i];
  }
  return all;
}

std::vector<std::optional<std::vector<double>>> GangTransport::take_timelines() {
  Timelines& t = *timelines_;
  std::vector<std::optional<std::vector<double>>> out(t.received.size());
  for (std::size_t i = 0; i < t.received.size(); ++i) {
    if (t.arrived[i]) {
      out[i] = std::move(t.received[i]);
      continue;
    }
    MPI_Cancel(&t.receives[i]);  // never reported: the receive is withdrawn
    MPI_Wait(&t.receives[i], MPI_STATUS_IGNORE);
  }
  t.received.clear();
  t.arrived.clear();
  t.receives.clear();
  return out;
}
#else
// Without MPI there is one rank, the reporter: nothing travels.
void GangTransport::send_timeline(const std::vector<double>&, int) {}
bool GangTransport::poll_timeline_sent() { return true; }
void GangTransport::receive_timelines(int, int, const std::vector<double>& own) { timelines_->received = {own}; }
bool GangTransport::poll_timelines() { return true; }
std::vector<std::optional<std::vector<double>>> GangTransport::take_timelines() {
  std::vector<std::optional<std::vector<double>>> out;
  for (auto& r : timelines_->received) out.emplace_back(std::move(r));
  timelines_->received.clear();
  return out;
}
#endif

}  // namespace placebench::collectives::detail
