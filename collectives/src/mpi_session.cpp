// MPI process setup and helpers (see mpi_session.h).
#include "placebench/collectives/mpi_session.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "mpi_call.h"
#endif

namespace placebench::collectives {

bool mpi_built() { return PLACEBENCH_HAVE_MPI; }

namespace {
std::atomic<int> g_stall_report_fd{2};
}

void set_stall_report_fd(int fd) { g_stall_report_fd.store(fd); }

int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

#if PLACEBENCH_HAVE_MPI
namespace {
MPI_Comm g_world = MPI_COMM_WORLD;
// Whether MPI_Abort can be called (between MPI_Init and MPI_Finalize); read by the watchdog's thread.
std::atomic<bool> g_mpi_running{false};

// The watchdog's expiry: the message on stderr, then the same end as a dead peer (MPI_Abort, so the
// launcher ends every rank). MPI_Abort is called from the watchdog's thread while the main thread is
// blocked in MPI; should it not return promptly, the process ends itself 5 s later, which the launcher
// also takes as the job's failure.
[[noreturn]] void abort_stalled_job(const std::string& message) {
  std::string line = "placebench: error: " + message + "\n";
  ssize_t ignored = ::write(g_stall_report_fd.load(), line.data(), line.size());
  (void)ignored;
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(5));
    std::_Exit(1);
  }).detach();
  if (g_mpi_running.load()) MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}
}  // namespace

MpiSession::MpiSession(double stall_timeout_s)
    : watchdog_(std::make_unique<Watchdog>("rank " + std::to_string(launcher_rank()), stall_timeout_s,
                                           abort_stalled_job)) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  auto setup = watchdog_->watch("MPI setup (MPI_Init, the node-local communicator)");
  if (!initialized) {
    int provided = 0;
    PB_MPI_CALL(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
    owns_ = true;
  }
  g_mpi_running.store(true);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  PB_MPI_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  host_.assign(name, static_cast<std::size_t>(len));
}

MpiSession::~MpiSession() { finalize(); }

void MpiSession::finalize() {
  if (owns_ && !finalized_) {
    auto w = watch("MPI_Finalize");
    MPI_Finalize();
    g_mpi_running.store(false);
  }
  finalized_ = true;
}

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

Watchdog::Watch MpiSession::watch(std::string what, double per_call_s) { return watchdog_->watch(std::move(what), per_call_s); }

double MpiSession::stall_timeout_s() const { return watchdog_->stall_timeout_s(); }

void MpiSession::barrier() {
  auto w = watch("MPI_Barrier");
  PB_MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
}

int MpiSession::agree_max(int status) {
  auto w = watch("MPI_Allreduce (the ranks' agreement)");
  int out = 0;
  PB_MPI_CALL(MPI_Allreduce(&status, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return out;
}

double MpiSession::sum(double value) {
  auto w = watch("MPI_Allreduce (sum)");
  double out = 0;
  PB_MPI_CALL(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  return out;
}

double MpiSession::max(double value) {
  auto w = watch("MPI_Allreduce (max)");
  double out = 0;
  PB_MPI_CALL(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return out;
}

double MpiSession::broadcast(double value, int root) {
  auto w = watch("MPI_Bcast from rank " + std::to_string(root));
  PB_MPI_CALL(MPI_Bcast(&value, 1, MPI_DOUBLE, root, MPI_COMM_WORLD));
  return value;
}

std::vector<std::string> MpiSession::gather_strings(const std::string& mine, int root) {
  auto w = watch("MPI_Gather to rank " + std::to_string(root));
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank_ == root ? static_cast<std::size_t>(size_) : 0);
  PB_MPI_CALL(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, MPI_COMM_WORLD));
  std::vector<int> displs(lens.size());
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  PB_MPI_CALL(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, root,
                          MPI_COMM_WORLD));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

std::vector<double> MpiSession::gather_doubles(const std::vector<double>& mine, int root) {
  auto w = watch("MPI_Gather to rank " + std::to_string(root));
  std::vector<double> all(rank_ == root ? mine.size() * static_cast<std::size_t>(size_) : 0);
  PB_MPI_CALL(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                         static_cast<int>(mine.size()), MPI_DOUBLE, root, MPI_COMM_WORLD));
  return all;
}

std::string MpiSession::broadcast_string(const std::string& value, int root) {
  auto w = watch("MPI_Bcast from rank " + std::to_string(root));
  unsigned long long len = value.size();
  PB_MPI_CALL(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD));
  std::string out = rank_ == root ? value : std::string(static_cast<std::size_t>(len), '\0');
  PB_MPI_CALL(MPI_Bcast(out.data(), static_cast<int>(len), MPI_CHAR, root, MPI_COMM_WORLD));
  return out;
}

bool MpiSession::idle_barrier(std::chrono::milliseconds timeout) {
  MPI_Request request;
  PB_MPI_CALL(MPI_Ibarrier(MPI_COMM_WORLD, &request));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int done = 0;
    PB_MPI_CALL(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void* MpiSession::world_handle() const { return &g_world; }

#else
MpiSession::MpiSession(double) { throw MpiNotBuilt(); }
MpiSession::~MpiSession() = default;
Watchdog::Watch MpiSession::watch(std::string what, double per_call_s) { return watchdog_->watch(std::move(what), per_call_s); }
double MpiSession::stall_timeout_s() const { return StallTimeout::kDefaultS; }
void MpiSession::finalize() {}
void MpiSession::abort(int code) { std::_Exit(code); }
void MpiSession::barrier() {}
int MpiSession::agree_max(int status) { return status; }
double MpiSession::sum(double v) { return v; }
double MpiSession::max(double v) { return v; }
double MpiSession::broadcast(double v, int) { return v; }
std::string MpiSession::broadcast_string(const std::string& value, int) { return value; }
bool MpiSession::idle_barrier(std::chrono::milliseconds) { return true; }
std::vector<std::string> MpiSession::gather_strings(const std::string& mine, int) { return {mine}; }
std::vector<double> MpiSession::gather_doubles(const std::vector<double>& mine, int) { return mine; }
void* MpiSession::world_handle() const { return nullptr; }
#endif

}  // namespace placebench::collectives
