// The NCCL-or-MPI rule of multi-rank jobs (see backend_choice.h).
#include "placebench/harness/collectives_driver/backend_choice.h"

#include "placebench/collectives/nccl_library.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

using collectives::Backend;

// The rule for one rank: mpi -> MPI; nccl -> NCCL, `refused` when the rank cannot use it; anything else
// (auto) -> NCCL when the rank can use it.
struct RankRule {
  bool nccl = false;
  bool refused = false;
};

RankRule apply_rule(const std::string& requested, bool nccl_usable) {
  if (requested == "mpi") return {false, false};
  if (requested == "nccl") return {nccl_usable, !nccl_usable};
  return {nccl_usable, false};
}

Backend backend_of(const RankRule& rule) { return rule.nccl ? Backend::kNccl : Backend::kMpi; }

}  // namespace

NcclSupport nccl_support(const RankDevice& device, const kernels::DeviceRuntime& runtime) {
  const collectives::NcclAvailability& nccl = collectives::nccl_availability();
  return {device.device.gpu.has_value() && runtime.usable(), runtime.status, nccl.loaded, nccl.detail, nccl.version};
}

BackendChoice choose_collective_backend(const std::string& requested, const NcclSupport& s) {
  RankRule rule = apply_rule(requested, s.usable());
  if (rule.refused && !s.cuda_device)
    throw InputError("--backend nccl: this rank has no usable CUDA device (" + s.cuda_status + "); use --backend mpi or auto");
  if (rule.refused) throw InputError("--backend nccl: " + s.nccl_detail + "; or use --backend mpi");
  if (requested != "auto") return {backend_of(rule), "requested"};
  if (rule.nccl) return {Backend::kNccl, "auto: a CUDA device and NCCL " + collectives::format_nccl_version(s.nccl_version)};
  return {Backend::kMpi, "auto: " + (!s.cuda_device ? "no CUDA device for this rank (" + s.cuda_status + ")" : s.nccl_detail)};
}

BackendChoice choose_gang_backend(const std::string& requested, const NcclSupport& s, bool missing_rank) {
  // A missing rank never joins: it needs no device, and NCCL only loaded (for its transport) under auto.
  bool usable = missing_rank ? requested == "nccl" || s.nccl_loaded : s.usable();
  RankRule rule = apply_rule(requested, usable);
  if (rule.refused)
    throw InputError("--backend nccl: " + (s.cuda_device ? s.nccl_detail : "no usable CUDA device (" + s.cuda_status + ")") +
                     "; use --backend mpi");
  if (requested != "auto") return {backend_of(rule), "requested"};
  return {backend_of(rule), rule.nccl ? "auto: a CUDA device and NCCL" : "auto: no GPU or no NCCL"};
}

Backend choose_class_backend(const std::string& class_name, const std::string& requested, const NcclSupport& s) {
  RankRule rule = apply_rule(requested, s.usable());
  if (rule.refused) throw InputError("class " + class_name + ": backend nccl needs a CUDA device and NCCL on every rank");
  return backend_of(rule);
}

Backend agree_on_backend(collectives::MpiSession& session, Backend mine) {
  bool some_rank_on_mpi = session.agree_max(mine == Backend::kMpi ? 1 : 0) == 1;
  return some_rank_on_mpi ? Backend::kMpi : Backend::kNccl;
}

BackendChoice agree_on_backend(collectives::MpiSession& session, const BackendChoice& mine) {
  Backend agreed = agree_on_backend(session, mine.backend);
  if (agreed == mine.backend) return mine;
  return {agreed, "auto: another rank cannot use NCCL"};
}

}  // namespace placebench::harness
