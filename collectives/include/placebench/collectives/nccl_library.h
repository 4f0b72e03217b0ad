// Run-time loading of NCCL. NCCL is large (~200 MB) and absent from CPU-only nodes, so placebench
// never links it: only the NCCL backend loads libnccl.so.2, and its absence is a clear error.
#pragma once
#include <string>

namespace placebench::collectives {

struct NcclAvailability {
  bool built = false;   // the NCCL backend was compiled in
  bool loaded = false;  // libnccl.so.2 could be loaded
  int version = 0;      // ncclGetVersion(), e.g. 22803
  std::string detail;   // the path loaded, or why it could not be
};

// Tries to load NCCL (once per process; later calls return the same answer). Honours NCCL_LIBRARY
// (a path) before the dynamic loader's search.
const NcclAvailability& nccl_availability();

// 22803 -> "2.28.3"; 0 -> "not found".
std::string format_nccl_version(int version);

}  // namespace placebench::collectives
