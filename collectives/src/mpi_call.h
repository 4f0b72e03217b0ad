// PB_MPI_CALL: an MPI call whose failure throws std::runtime_error with MPI's message, the call, file
// and line (MpiSession sets MPI_ERRORS_RETURN on the world, so errors come back as return codes).
// Internal to collectives; only built with the MPI backend.
#pragma once
#if PLACEBENCH_HAVE_MPI

namespace placebench::collectives::detail {

[[noreturn]] void mpi_fail(int rc, const char* what, const char* file, int line);

// Throws unless rc is MPI_SUCCESS (0 in every MPI; inline: it runs in every timed call).
inline void mpi_check(int rc, const char* what, const char* file, int line) {
  if (rc != 0) mpi_fail(rc, what, file, line);
}

}  // namespace placebench::collectives::detail

#define PB_MPI_CALL(expr) ::placebench::collectives::detail::mpi_check((expr), #expr, __FILE__, __LINE__)
#endif
