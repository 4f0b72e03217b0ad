// `placebench check` against a GPU node check (scripts/gpu-node-check.sh): its summary.json's figures
// (per-GPU pinned staging medians at the largest size, local arm; the NCCL all-reduce busbw at the
// largest size) against the reference file's node_checks: minimums (see evaluate.h, reference.h).
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_file.h"

namespace placebench::harness::check {
namespace {

using nlohmann::json;

constexpr const char* kNodeCheckKind = "gpu-node-check";

struct Figure {
  std::string where;  // "gpu0", or "node" for the all-reduce
  std::optional<double> value;
};

std::optional<double> number_at(const json& obj, std::initializer_list<const char*> path) {
  const json* at = &obj;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  return at->is_number() ? std::optional<double>(at->get<double>()) : std::nullopt;
}

std::vector<Figure> figures(const json& summary, const std::string& metric) {
  if (metric == "nccl_allreduce_busbw_gbps") return {{"node", number_at(summary, {"collective", "busbw_gbps"})}};
  const char* direction = metric == "staging_h2d_pinned_gbps" ? "h2d_pinned" : "d2h_pinned";
  std::vector<Figure> out;
  const json gpus = summary.value("gpus", json::object());
  if (gpus.is_object())
    for (const auto& [gpu, fig] : gpus.items())
      out.push_back({"gpu" + gpu, number_at(fig, {"staging", direction, "local", "gbps_median"})});
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
  json summary;
  try {
    summary = json::parse(read_input_file(path, "give a run directory or a GPU node check's output directory", kMaxResultsBytes));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not JSON ({}); rerun the GPU node check's summary step", path, e.what()));
  }
  if (!summary.is_object() || summary.value("kind", std::string()) != kNodeCheckKind) return std::nullopt;
  RunEvidence ev;
  ev.dir = dir;
  ev.node_summary = std::move(summary);
  ev.node_check = true;
  return ev;
}

void evaluate_node_checks(const ReferenceFile& reference, const RunEvidence& run, CheckReport& report) {
  if (reference.node_checks.empty())
    throw InputError(fmt::format("{}: is a GPU node check's summary and {} has no node_checks:; give a node reference "
                                 "(configs/references/h100.yaml, h200.yaml)", run.dir, reference.path));
  if (reference.require_complete) {
    const json failed = run.node_summary.value("failed_steps", json::array());
    bool ok = failed.is_array() && failed.empty();
    report.checks.push_back({"node check steps", "run", "", ok, "every step ok or skipped",
                             ok ? "ok" : "failed: " + failed.dump(),
                             ok ? "" : "a step of the node check failed; see steps in summary.json", reference.path});
  }
  for (const NodeCheck& n : reference.node_checks)
    for (const Figure& f : figures(run.node_summary, n.metric)) report.checks.push_back(evaluate_figure(n, f));
}

}  // namespace placebench::harness::check
