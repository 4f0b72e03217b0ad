// The backend of a multi-rank job (`collective`, `gang`, the collective classes of `run`), decided here
// once: a rank can use NCCL when it drives a GPU, the CUDA runtime has a usable device and libnccl
// loads; `mpi` means MPI, `nccl` means NCCL (bad input on a rank that cannot use it), `auto` means NCCL
// when this rank can use it. Then every rank runs what all of them chose: one rank on MPI puts every
// rank on MPI. Each caller keeps its own words for the reason and the error.
#pragma once
#include <string>

#include "placebench/collectives/collective.h"
#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {

// What this rank has for NCCL.
struct NcclSupport {
  bool cuda_device = false;  // the rank drives a GPU and the CUDA runtime has a usable device
  std::string cuda_status;   // the runtime's status (why there is no usable device)
  bool nccl_loaded = false;  // libnccl.so.2 was loaded
  std::string nccl_detail;   // the path loaded, or why it could not be (and what to install)
  int nccl_version = 0;
  bool usable() const { return cuda_device && nccl_loaded; }
};

// The rank's device (rank_device) and the node's CUDA runtime; loads NCCL if it was not yet.
NcclSupport nccl_support(const RankDevice& device, const kernels::DeviceRuntime& runtime);

struct BackendChoice {
  collectives::Backend backend = collectives::Backend::kMpi;
  std::string reason;  // "requested", or what `auto` found
};

// This rank's choice; `requested` is "auto", "mpi" or "nccl" (a class's workload.backend: anything else
// is auto). They throw InputError when NCCL is requested and this rank cannot use it.
// `placebench collective`: the error names what is missing and the fix; auto's reason says what it found.
BackendChoice choose_collective_backend(const std::string& requested, const NcclSupport& support);
// `placebench gang`: a missing rank never joins, so it needs no device, and it never refuses a requested NCCL.
BackendChoice choose_gang_backend(const std::string& requested, const NcclSupport& support, bool missing_rank);
// A collective class of `placebench run`.
collectives::Backend choose_class_backend(const std::string& class_name, const std::string& requested,
                                          const NcclSupport& support);

// The backend every rank runs: NCCL only when every rank chose it (an MPI_Allreduce: call it on every
// rank, after setup errors were agreed on).
collectives::Backend agree_on_backend(collectives::MpiSession& session, collectives::Backend mine);
// The same for a choice with its reason: a rank whose NCCL is overruled says so ("auto: another rank
// cannot use NCCL").
BackendChoice agree_on_backend(collectives::MpiSession& session, const BackendChoice& mine);

}  // namespace placebench::harness
