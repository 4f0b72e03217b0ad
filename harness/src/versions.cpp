// Run-time version report (see build_info.h).
#include <fmt/format.h>
#include <hwloc.h>

#include "placebench/collectives/mpi_info.h"
#include "placebench/collectives/nccl_library.h"
#include "placebench/harness/build_info.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {

VersionReport collect_versions() {
  VersionReport v;
  v.placebench = placebench_version();
  v.git_revision = placebench_git_revision();
  v.hwloc = HWLOC_VERSION;  // as topology.h's hwloc_runtime_version: the release built against
  v.mpi = collectives::mpi_library_version();
  kernels::DeviceRuntime rt = kernels::query_device_runtime();
  v.cuda_runtime = rt.built ? kernels::format_cuda_version(rt.runtime_version) : "not built";
  v.cuda_driver = rt.driver_version > 0 ? kernels::format_cuda_version(rt.driver_version) : "no driver";
  const auto& nccl = collectives::nccl_availability();
  v.nccl = nccl.loaded ? collectives::format_nccl_version(nccl.version) + " (" + nccl.detail + ")"
                       : (nccl.built ? "not found (loaded at run time by the NCCL backend only)" : "not built");
  return v;
}

std::string render_versions(const VersionReport& v) {
  return fmt::format(
      "placebench {} (git {})\n"
      "hwloc        {}\n"
      "MPI          {}\n"
      "CUDA runtime {}\n"
      "CUDA driver  {}\n"
      "NCCL         {}\n",
      v.placebench, v.git_revision, v.hwloc, v.mpi, v.cuda_runtime, v.cuda_driver, v.nccl);
}

nlohmann::json versions_to_json(const VersionReport& v) {
  return {{"placebench", v.placebench}, {"git_revision", v.git_revision}, {"hwloc", v.hwloc}, {"mpi", v.mpi},
          {"cuda_runtime", v.cuda_runtime}, {"cuda_driver", v.cuda_driver}, {"nccl", v.nccl}};
}

}  // namespace placebench::harness
