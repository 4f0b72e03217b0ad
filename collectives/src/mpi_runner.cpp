// The MPI backend of the benchmark: host buffers (the rank's placed memory), blocking MPI calls, the
// host's steady clock for timing.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "runner.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "mpi_call.h"
#endif

namespace placebench::collectives::detail {
namespace {

// Open MPI (like most MPIs) opens a connection to a peer, and sets up its large-message (rendezvous,
// single-copy) path, on first use: a shift exchange with every peer at 8 bytes and at the buffer size
// (capped at 1 MiB, past every eager limit) pays for that here, outside any timed block.
void connect_every_peer(MpiSession& session, void* send, void* recv, std::size_t bytes) {
#if PLACEBENCH_HAVE_MPI
  MPI_Comm comm = *static_cast<MPI_Comm*>(session.world_handle());
  int n = session.size(), me = session.rank();
  std::size_t large = std::min<std::size_t>(bytes, std::size_t{1} << 20);
  for (std::size_t len : {std::min<std::size_t>(8, bytes), large})
    for (int shift = 1; shift < n; ++shift)
      PB_MPI_CALL(MPI_Sendrecv(send, static_cast<int>(len), MPI_BYTE, (me + shift) % n, 0, recv, static_cast<int>(len),
                               MPI_BYTE, (me - shift + n) % n, 0, comm, MPI_STATUS_IGNORE));
#else
  (void)session, (void)send, (void)recv, (void)bytes;
#endif
}

class MpiRunner final : public Runner {
 public:
  MpiRunner(MpiSession& session, void* host, std::size_t bytes)
      : comm_(session.world_handle()), send_(host), recv_(static_cast<char*>(host) + bytes) {
    connect_every_peer(session, send_, recv_, bytes);
  }
  Backend backend() const override { return Backend::kMpi; }
  void* send_buffer() override { return send_; }
  void* recv_buffer() override { return recv_; }
  void upload(void* dst, const void* host, std::size_t bytes) override {
    if (dst != host) std::memmove(dst, host, bytes);
  }
  void download(void* host, const void* src, std::size_t bytes) override {
    if (host != src) std::memmove(host, src, bytes);
  }
  void run_n(const CollectiveOp& op, OpCall call, int n) override {
    call.comm = comm_;
    op.run_mpi_n(call, n);
  }
  void wait() override {}  // MPI calls here are blocking
  void begin_timing() override { start_ = std::chrono::steady_clock::now(); }
  double end_timing_s() override { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  void* comm_;
  void* send_;
  void* recv_;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace

std::unique_ptr<Runner> make_mpi_runner(MpiSession& session, void* host, std::size_t buffer_bytes) {
  if (!mpi_built()) throw MpiNotBuilt();
  return std::make_unique<MpiRunner>(session, host, buffer_bytes);
}

}  // namespace placebench::collectives::detail
