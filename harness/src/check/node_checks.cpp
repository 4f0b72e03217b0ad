// `placebench check` against a GPU node check (scripts/gpu-node-check.sh): its summary.json's figures
// (per-GPU pinned staging medians at the largest size, local arm; the NCCL all-reduce busbw at the
// largest size) against the reference file's node_checks: minimums (see evaluate.h, reference.h). The
// summary is read through its typed reader (node_check_summary.h).
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/results_json.h"

namespace placebench::harness::check {
namespace {

using nlohmann::json;

struct Figure {
  std::string where;  // "gpu0", or "node" for the all-reduce
  std::optional<double> value;
};

std::vector<Figure> figures(const NodeCheckSummary& summary, const std::string& metric) {
  if (metric == "nccl_allreduce_busbw_gbps")
    return {{"node", summary.collective ? summary.collective->busbw_gbps : std::nullopt}};
  const char* direction = metric == "staging_h2d_pinned_gbps" ? "h2d_pinned" : "d2h_pinned";
  std::vector<Figure> out;
  for (const auto& [gpu, fig] : summary.gpus) {
    std::optional<double> value;
    auto file = fig.staging.find(direction);
    if (file != fig.staging.end())
      if (auto arm = file->second.find("local"); arm != file->second.end()) value = arm->second.gbps_median;
    out.push_back({"gpu" + gpu, value});
  }
  if (out.empty()) out.push_back({"node", std::nullopt});  // no GPU measured: the check cannot pass
  return out;
}

CheckResult evaluate_figure(const NodeCheck& n, const Figure& f) {
  CheckResult c{fmt::format("{} {}", n.name, f.where), "node", "", false, "", "", "", n.where};
  c.expected = fmt::format(">= {:g} {}{}", n.min, n.unit, n.source.empty() ? "" : " (" + n.source + ")");
  if (!f.value) {
    c.actual = "missing";
    c.message = fmt::format("{} has no {} figure: the step that measures it did not run or failed (see steps in "
                            "summary.json)", f.where, n.metric);
    return c;
  }
  c.actual = fmt::format("{:.4g} {}", *f.value, n.unit);
  c.passed = *f.value >= n.min;
  if (!c.passed)
    c.message = fmt::format("{}: {} is {:.4g} {}, below the minimum {:g} {}", f.where, n.metric, *f.value, n.unit, n.min, n.unit);
  return c;
}

}  // namespace

std::optional<RunEvidence> load_node_check_evidence(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string path = fs::is_directory(dir, ec) ? (fs::path(dir) / "summary.json").string() : dir;
  if (!fs::is_regular_file(path, ec) || fs::exists(fs::path(dir) / "run.json", ec)) return std::nullopt;
  const std::string text =
      read_input_file(path, "give a run directory or a GPU node check's output directory", kMaxResultsBytes);
  const json summary = parse_results_json(text, path, "rerun the GPU node check's summary step");
  if (!looks_like_node_check(summary)) return std::nullopt;
  RunEvidence ev;
  ev.dir = dir;
  ev.node_summary = node_check_from_json(summary, path);
  ev.node_check = true;
  return ev;
}

void evaluate_node_checks(const ReferenceFile& reference, const RunEvidence& run, CheckReport& report) {
  if (reference.node_checks.empty())
    throw InputError(fmt::format("{}: is a GPU node check's summary and {} has no node_checks:; give a node reference "
                                 "(configs/references/h100.yaml, h200.yaml)", run.dir, reference.path));
  if (reference.require_complete) {
    const std::vector<std::string>& failed = run.node_summary.failed_steps;
    bool ok = failed.empty();
    report.checks.push_back({"node check steps", "run", "", ok, "every step ok or skipped",
                             ok ? "ok" : "failed: " + json(failed).dump(),
                             ok ? "" : "a step of the node check failed; see steps in summary.json", reference.path});
  }
  for (const NodeCheck& n : reference.node_checks)
    for (const Figure& f : figures(run.node_summary, n.metric)) report.checks.push_back(evaluate_figure(n, f));
}

}  // namespace placebench::harness::check
