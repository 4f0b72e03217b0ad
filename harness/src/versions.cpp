// Run-time version report (see build_info.h).
#include <fmt/format.h>
#include <hwloc.h>

#include "placebench/collectives/mpi_info.h"
#include "placebench/collectives/nccl_library.h"
#include "placebench/harness/build_info.h"
#include "placebench/kernels/device_runtime.h"
#include "placebench/kernels/node_versions.h"

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
  v.kernel = kernels::kernel_release();
  v.gpu_driver = kernels::nvidia_driver_version();
  v.nccl = nccl.loaded ? collectives::format_nccl_version(nccl.version) + " (" + nccl.detail + ")"
                       : (nccl.built ? "not found (loaded at run time by the NCCL backend only)" : "not built");
  return v;
}

std::string render_versions(const VersionReport& v) {
  return fmt::format(
      "placebench {} (git {})\n"
      "kernel       {}\n"
      "GPU driver   {}\n"
      "hwloc        {}\n"
      "MPI          {}\n"
      "CUDA runtime {}\n"
      "CUDA driver  {}\n"
      "NCCL         {}\n",
      v.placebench, v.git_revision, v.kernel.value_or("unknown"),
      v.gpu_driver.value_or(fmt::format("none found in {}", kernels::kNvidiaProcVersionPath)), v.hwloc, v.mpi,
      v.cuda_runtime, v.cuda_driver, v.nccl);
}

nlohmann::json versions_to_json(const VersionReport& v) {
  const auto or_null = [](const std::optional<std::string>& s) { return s ? nlohmann::json(*s) : nlohmann::json(); };
  return {{"placebench", v.placebench}, {"git_revision", v.git_revision}, {"kernel", or_null(v.kernel)},
          {"gpu_driver", or_null(v.gpu_driver)}, {"hwloc", v.hwloc}, {"mpi", v.mpi},
          {"cuda_runtime", v.cuda_runtime}, {"cuda_driver", v.cuda_driver}, {"nccl", v.nccl}};
}

}  // namespace placebench::harness
