// The MPI backend of the benchmark: host buffers (the rank's placed memory), blocking MPI calls.
#include <cstring>

#include "runner.h"

namespace placebench::collectives::detail {
namespace {

class MpiRunner final : public Runner {
 public:
  MpiRunner(MpiSession& session, void* host, std::size_t bytes)
      : comm_(session.world_handle()), send_(host), recv_(static_cast<char*>(host) + bytes) {}
  Backend backend() const override { return Backend::kMpi; }
  void* send_buffer() override { return send_; }
  void* recv_buffer() override { return recv_; }
  void upload(void* dst, const void* host, std::size_t bytes) override {
    if (dst != host) std::memmove(dst, host, bytes);
  }
  void download(void* host, const void* src, std::size_t bytes) override {
    if (host != src) std::memmove(host, src, bytes);
  }
  void run(const CollectiveOp& op, OpCall call) override {
    call.comm = comm_;
    op.run_mpi(call);
  }
  void wait() override {}  // MPI calls here are blocking

 private:
  void* comm_;
  void* send_;
  void* recv_;
};

}  // namespace

std::unique_ptr<Runner> make_mpi_runner(MpiSession& session, void* host, std::size_t buffer_bytes) {
  if (!mpi_built()) throw MpiNotBuilt();
  return std::make_unique<MpiRunner>(session, host, buffer_bytes);
}

}  // namespace placebench::collectives::detail
