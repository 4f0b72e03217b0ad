// The MPI library this binary was built with (callable before MPI_Init).
#pragma once
#include <string>

namespace placebench::collectives {

// "Open MPI v4.1.4, ..." (first line of MPI_Get_library_version), or "not built".
std::string mpi_library_version();

// True when this process was started by an MPI launcher (mpirun/srun set these variables).
bool launched_by_mpi();

}  // namespace placebench::collectives
