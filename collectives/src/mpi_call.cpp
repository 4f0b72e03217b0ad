// MPI error checks (see mpi_call.h).
#include "mpi_call.h"

#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace placebench::collectives::detail {

[[noreturn]] void mpi_fail(int rc, const char* what, const char* file, int line) {
  char msg[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(what) + " failed: " + std::string(msg, static_cast<std::size_t>(len)) + " (" +
                           file + ":" + std::to_string(line) + ")");
}

}  // namespace placebench::collectives::detail
#endif
