// MPI process setup and helpers (see mpi_session.h).
#include "placebench/collectives/mpi_session.h"

#include <cstdlib>
#include <string>
#include <thread>
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "mpi_call.h"
#endif

namespace placebench::collectives {

bool mpi_built() { return PLACEBENCH_HAVE_MPI; }

int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

#if PLACEBENCH_HAVE_MPI
namespace {
MPI_Comm g_world = MPI_COMM_WORLD;
}

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    PB_MPI_CALL(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
    owns_ = true;
  }
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

MpiSession::~MpiSession() {
  if (owns_ && !finalized_) MPI_Finalize();
}

void MpiSession::finalize() {
  if (owns_ && !finalized_) MPI_Finalize();
  finalized_ = true;
}

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void MpiSession::barrier() { PB_MPI_CALL(MPI_Barrier(MPI_COMM_WORLD)); }

int MpiSession::agree_max(int status) {
  int out = 0;
  PB_MPI_CALL(MPI_Allreduce(&status, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return out;
}

double MpiSession::sum(double value) {
  double out = 0;
  PB_MPI_CALL(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  return out;
}

double MpiSession::max(double value) {
  double out = 0;
  PB_MPI_CALL(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return out;
}

double MpiSession::broadcast(double value, int root) {
  PB_MPI_CALL(MPI_Bcast(&value, 1, MPI_DOUBLE, root, MPI_COMM_WORLD));
  return value;
}

std::vector<std::string> MpiSession::gather_strings(const std::string& mine, int root) {
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
  std::vector<double> all(rank_ == root ? mine.size() * static_cast<std::size_t>(size_) : 0);
  PB_MPI_CALL(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                         static_cast<int>(mine.size()), MPI_DOUBLE, root, MPI_COMM_WORLD));
  return all;
}

std::string MpiSession::broadcast_string(const std::string& value, int root) {
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
MpiSession::MpiSession() { throw MpiNotBuilt(); }
MpiSession::~MpiSession() = default;
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
