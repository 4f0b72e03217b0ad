// MPI library identification (see mpi_info.h).
#include "placebench/collectives/mpi_info.h"

#include <cstdlib>
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace placebench::collectives {

std::string mpi_library_version() {
#if PLACEBENCH_HAVE_MPI
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<size_t>(len));
  auto cut = s.find_first_of(",\n");
  return cut == std::string::npos ? s : s.substr(0, cut);
#else
  return "not built";
#endif
}

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace placebench::collectives
