// A GPU node check's summary.json (scripts/gpu_node_summary.py writes it; docs/gpu-node-check.md) as a
// typed record, read by `placebench check` (node_checks.cpp). Its keys are spelled once in C++, in the
// field tables of node_check_summary.cpp that the reader walks.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace placebench::harness::check {

inline constexpr int kNodeCheckSchemaVersion = 1;
inline constexpr const char* kNodeCheckKind = "gpu-node-check";

struct NodeCheckStep {  // one line of steps.jsonl
  std::string step, status, detail;
  double seconds = 0;
};

struct StagingFigure {  // one arm at a staging file's largest size
  std::optional<std::int64_t> bytes;
  std::optional<double> gbps_median;
  std::optional<std::string> placement;        // the placement's status ("verified")
  std::optional<std::int64_t> cuda_context_node;
};

struct NodeGpu {
  // "<direction>_<memory>" (h2d_pinned) -> arm (local, remote, unpinned) -> figure
  std::map<std::string, std::map<std::string, StagingFigure>> staging;
  std::optional<double> reference_h2d_gbps, ratio_to_reference;
  std::optional<bool> ratio_target_met;
};

struct NodeCollective {  // the NCCL all-reduce at the largest size
  std::optional<double> busbw_gbps;
  std::optional<std::int64_t> size, wrong, nranks;
};

struct NodeCheckSummary {
  int schema_version = kNodeCheckSchemaVersion;
  std::string kind = kNodeCheckKind;
  std::vector<NodeCheckStep> steps;
  std::vector<std::string> failed_steps;
  std::map<std::string, NodeGpu> gpus;  // by CUDA index, as text ("0")
  std::optional<NodeCollective> collective;
  std::optional<std::string> gang;      // gang.json's outcome
  bool pipeline = false;                // pipeline.json was written
  std::string verdict;                  // pass, fail or incomplete (the steps')
};

// Whether `j` is a node check's summary (an object of kind "gpu-node-check"); others are read as runs.
bool looks_like_node_check(const nlohmann::json& j);
// The summary in `j` (read from `path`): schema_version 1 and kind required; every other key, when present,
// of its type (null where the writer writes null). InputError "PATH: KEY: expected ...; FIX" (exit 2).
NodeCheckSummary node_check_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace placebench::harness::check
