// Versions of placebench and of every library it talks to, for --version and the results' context.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace placebench::harness {

const char* placebench_version();
const char* placebench_git_revision();

struct VersionReport {
  std::string placebench, git_revision, hwloc, mpi, cuda_runtime, cuda_driver, nccl;
};

// Queries each library at run time (the CUDA driver and NCCL may be absent: that is reported, not fatal).
VersionReport collect_versions();
std::string render_versions(const VersionReport& v);
nlohmann::json versions_to_json(const VersionReport& v);

}  // namespace placebench::harness
