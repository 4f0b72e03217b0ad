// The MPI gang transport. Each attempt has its own communicator (MPI_Comm_dup at setup, while every
// rank is alive), so an abandoned barrier can never be matched by a later attempt's. A non-blocking
// barrier cannot be cancelled or freed (MPI 3.1 §5.12), so abandoned ones stay outstanding until the
// ranks that never posted them post them in post_catch_up(): then every request completes and MPI can
// finalize.
#include <vector>

#include "transport.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "../mpi_call.h"
#endif

namespace placebench::collectives::detail {

#if PLACEBENCH_HAVE_MPI
namespace {

class MpiGangTransport final : public GangTransport {
 public:
  MpiGangTransport(MpiSession& session, const GangConfig& cfg)
      : cfg_(cfg), posted_(static_cast<std::size_t>(cfg.retries + 1), false) {
    Watchdog::Watch watch = session.watch("MPI_Comm_dup (the gang's communicators)");
    for (int a = 0; a <= cfg.retries; ++a) {
      MPI_Comm c;
      PB_MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
      comms_.push_back(c);
      watch.progress();
    }
    // A barrier per attempt and a request per step: none allocates inside a timed step.
    outstanding_.reserve(static_cast<std::size_t>(cfg.retries + 1 + cfg.steps));
  }
  ~MpiGangTransport() override {
    // Communicators with outstanding requests are not freed (MPI_Finalize or the abort cleans up).
    for (MPI_Request r : outstanding_)
      if (r != MPI_REQUEST_NULL) return;
    for (auto& c : comms_) MPI_Comm_free(&c);
  }
  void acquire() override {
    buffer_.assign(cfg_.step_bytes / sizeof(float) + 1, 1.0f);  // allocated and touched
    result_.assign(buffer_.size(), 0.0f);
  }
  void release() override {
    std::vector<float>().swap(buffer_);
    std::vector<float>().swap(result_);
  }
  void begin_join(int attempt) override {
    attempt_ = attempt;
    post_barrier(attempt);
    current_ = outstanding_.size() - 1;
  }
  bool poll_join() override { return test(current_); }
  void abandon() override {}  // the barrier stays outstanding (see the file comment)
  void begin_step() override {
    MPI_Request r;
    PB_MPI_CALL(MPI_Iallreduce(buffer_.data(), result_.data(), static_cast<int>(buffer_.size()), MPI_FLOAT, MPI_SUM,
                               comms_[static_cast<std::size_t>(attempt_)], &r));
    outstanding_.push_back(r);
    step_ = outstanding_.size() - 1;
  }
  bool poll_step() override { return test(step_); }
  void post_catch_up() override {
    for (int a = 0; a <= cfg_.retries; ++a)
      if (!posted_[static_cast<std::size_t>(a)]) post_barrier(a);
  }
  bool poll_drained() override {
    for (std::size_t i = 0; i < outstanding_.size(); ++i)
      if (!test(i)) return false;
    return true;
  }

 private:
  void post_barrier(int a) {
    MPI_Request r;
    PB_MPI_CALL(MPI_Ibarrier(comms_[static_cast<std::size_t>(a)], &r));
    outstanding_.push_back(r);
    posted_[static_cast<std::size_t>(a)] = true;
  }
  bool test(std::size_t i) {
    if (outstanding_[i] == MPI_REQUEST_NULL) return true;
    int done = 0;
    PB_MPI_CALL(MPI_Test(&outstanding_[i], &done, MPI_STATUS_IGNORE));
    return done != 0;
  }

  GangConfig cfg_;
  std::vector<MPI_Comm> comms_;
  std::vector<bool> posted_;
  std::vector<MPI_Request> outstanding_;
  std::size_t current_ = 0, step_ = 0;
  int attempt_ = 0;
  std::vector<float> buffer_, result_;
};

}  // namespace

std::unique_ptr<GangTransport> make_mpi_gang_transport(MpiSession& session, const GangConfig& config) {
  return std::make_unique<MpiGangTransport>(session, config);
}
#else
std::unique_ptr<GangTransport> make_mpi_gang_transport(MpiSession&, const GangConfig&) { throw MpiNotBuilt(); }
#endif

}  // namespace placebench::collectives::detail
