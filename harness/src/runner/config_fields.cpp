// The tables of the config's description (see config_fields.h).
#include "config_fields.h"

namespace placebench::harness::detail {
namespace {

constexpr const char* kPlacedBackends[] = {"auto", "cuda", "host"};
constexpr const char* kCollectiveBackends[] = {"auto", "mpi", "nccl"};
constexpr const char* kDecodes[] = {"synthetic", "jpeg"};
constexpr const char* kCollectiveOps[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                          "reduce",    "alltoall",  "sendrecv"};
constexpr const char* kDataTypes[] = {"int8", "int32", "float16", "bfloat16", "float32", "float64"};
constexpr const char* kReductions[] = {"sum", "prod", "max", "min"};
constexpr double kNoBound = std::numeric_limits<double>::infinity();

}  // namespace

const std::vector<Named<Arm>>& arm_table() {
  static const std::vector<Arm> arms = all_arms();
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (Arm a : arms) n.push_back(arm_name(a));
    return n;
  }();
  static const std::vector<Named<Arm>> table = [] {
    std::vector<Named<Arm>> t;
    for (std::size_t i = 0; i < arms.size(); ++i) t.push_back({arms[i], names[i].c_str()});
    return t;
  }();
  return table;
}

std::span<const char* const> backends_of(const std::string& type) {
  if (type == "collective") return kCollectiveBackends;
  return kPlacedBackends;
}

const std::vector<ParamSpec>& params_of(const std::string& type) {
  using config_limits::kMaxPipelineCount;
  static const std::vector<ParamSpec> pipeline = {
      {"workers", ParamKind::kCount, {1, kMaxPipelineCount}},
      {"prefetch", ParamKind::kCount, {1, kMaxPipelineCount}},
      {"ring", ParamKind::kCount, {0, kMaxPipelineCount}},
      {"batch_bytes", ParamKind::kSize, {1, kNoBound}, {}, "4K, 64M, 1G"},
      {"batch_samples", ParamKind::kCount, {1, kMaxPipelineCount}},
      {"image", ParamKind::kImage, {1, kMaxPipelineCount}},
      {"decode", ParamKind::kChoice, {0, 0}, kDecodes},
      {"cpu_work_ns_per_kb", ParamKind::kNumber, {0, config_limits::kMaxCpuWorkNsPerKb, kNoBound}},
      {"step_compute", ParamKind::kDuration, {0, kNoBound}, {}, "2ms, 500us, 0.01s"},
      {"dataset_samples", ParamKind::kCount, {1, kMaxPipelineCount}},
  };
  static const std::vector<ParamSpec> collective = {
      {"op", ParamKind::kChoice, {0, 0}, kCollectiveOps, "", "allreduce"},
      {"dtype", ParamKind::kChoice, {0, 0}, kDataTypes, "", "float32"},
      {"redop", ParamKind::kChoice, {0, 0}, kReductions, "", "sum"},
      {"bytes", ParamKind::kSize, {1, kNoBound}, {}, "8, 64K, 1M", 1u << 20},
  };
  static const std::vector<ParamSpec> none;
  return type == "pipeline" ? pipeline : type == "collective" ? collective : none;
}

}  // namespace placebench::harness::detail
