// Versions of placebench and of every library it talks to, for --version and the results' context.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace placebench::harness {

const char* placebench_version();
const char* placebench_git_revision();

struct VersionReport {
  std::string placebench, git_revision, hwloc, mpi, cuda_runtime, cuda_driver, nccl;
  std::optional<std::string> kernel;      // uname's release; nullopt: unknown
  std::optional<std::string> gpu_driver;  // the NVIDIA kernel module's version; nullopt: no driver loaded
};

// Queries each library at run time (the CUDA driver and NCCL may be absent: that is reported, not fatal),
// and the node's kernel release and NVIDIA driver (kernels/node_versions.h). JSON: kernel and gpu_driver
// are null where absent, never a guessed value.
VersionReport collect_versions();
std::string render_versions(const VersionReport& v);
nlohmann::json versions_to_json(const VersionReport& v);

}  // namespace placebench::harness
