// A run's node evidence as one digest and in words (history.h): what the change-point attribution compares
// run to run and names ("CUDA driver 12.4 -> 12.6").
#include <fmt/format.h>

#include "store_detail.h"

namespace placebench::harness::history {
namespace {

std::string or_unknown(const std::optional<std::string>& v) { return v ? *v : "unknown"; }
std::string or_unknown(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "unknown"; }

}  // namespace

// Each entry "name value": the detail's parts, in a fixed order; the digest covers exactly these.
std::string NodeEvidence::detail() const {
  return fmt::format("placebench {}, git {}, kernel {}, GPU driver {}, CUDA driver {}, CUDA runtime {}, NCCL {}, MPI {}, "
                     "hwloc {}, topology {}, NUMA nodes {}, packages {}, GPUs {}",
                     or_unknown(placebench_version), or_unknown(git_revision), or_unknown(kernel), or_unknown(gpu_driver),
                     or_unknown(cuda_driver), or_unknown(cuda_runtime), or_unknown(nccl), or_unknown(mpi), or_unknown(hwloc),
                     or_unknown(topology_digest), or_unknown(numa_nodes), or_unknown(packages), or_unknown(gpus));
}

std::string NodeEvidence::digest() const { return history::detail::fnv1a64_hex(detail()); }

}  // namespace placebench::harness::history
