// A GPU node check's summary.json read as its typed record (see node_check_summary.h): the field tables
// below are its keys, as scripts/gpu_node_summary.py writes them.
#include "placebench/harness/check/node_check_summary.h"

#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/harness/json_fields.h"

namespace placebench::harness::check {
namespace {

using nlohmann::json;

constexpr Field<NodeCheckStep, std::string> kStepTexts[] = {
    {"step", &NodeCheckStep::step}, {"status", &NodeCheckStep::status}, {"detail", &NodeCheckStep::detail}};
constexpr Field<NodeCheckStep, double> kStepNumbers[] = {{"seconds", &NodeCheckStep::seconds}};
constexpr Field<StagingFigure, std::optional<std::int64_t>> kFigureIntegers[] = {
    {"bytes", &StagingFigure::bytes}, {"cuda_context_node", &StagingFigure::cuda_context_node}};
constexpr Field<StagingFigure, std::optional<double>> kFigureNumbers[] = {{"gbps_median", &StagingFigure::gbps_median}};
constexpr Field<StagingFigure, std::optional<std::string>> kFigureTexts[] = {{"placement", &StagingFigure::placement}};
constexpr Field<NodeGpu, std::optional<double>> kGpuNumbers[] = {{"reference_h2d_gbps", &NodeGpu::reference_h2d_gbps},
                                                                 {"ratio_to_reference", &NodeGpu::ratio_to_reference}};
constexpr Field<NodeGpu, std::optional<bool>> kGpuFlags[] = {{"ratio_target_met", &NodeGpu::ratio_target_met}};
constexpr Field<NodeCollective, std::optional<double>> kCollectiveNumbers[] = {{"busbw_gbps", &NodeCollective::busbw_gbps}};
constexpr Field<NodeCollective, std::optional<std::int64_t>> kCollectiveIntegers[] = {
    {"size", &NodeCollective::size}, {"wrong", &NodeCollective::wrong}, {"nranks", &NodeCollective::nranks}};
constexpr Field<NodeCheckSummary, std::vector<std::string>> kSummaryLists[] = {{"failed_steps", &NodeCheckSummary::failed_steps}};
constexpr Field<NodeCheckSummary, std::optional<std::string>> kSummaryOptionalTexts[] = {{"gang", &NodeCheckSummary::gang}};
constexpr Field<NodeCheckSummary, bool> kSummaryFlags[] = {{"pipeline", &NodeCheckSummary::pipeline}};
constexpr Field<NodeCheckSummary, std::string> kSummaryTexts[] = {{"verdict", &NodeCheckSummary::verdict}};
constexpr const char* kSteps = "steps";
constexpr const char* kGpus = "gpus";
constexpr const char* kStaging = "staging";
constexpr const char* kCollective = "collective";

constexpr const char* kFix = "rerun the GPU node check's summary step (scripts/gpu_node_summary.py)";

struct Reader {
  const std::string& path;
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw InputError(fmt::format("{}: {}: {}; {}", path, key, problem, kFix));
  }
  auto failing(const std::string& at) const {
    return [this, at](const char* key, const char* expected) { fail(at + key, std::string("expected ") + expected); };
  }
  // The map at `at` (its members each handed to `each`), or nothing when `key` is absent.
  template <class Each>
  void members(const json& o, const char* key, const std::string& at, const Each& each) const {
    auto it = o.find(key);
    if (it == o.end()) return;
    if (!it->is_object()) fail(at + key, "expected a map");
    for (const auto& [name, value] : it->items()) {
      if (!value.is_object()) fail(at + key + "." + name, "expected a map");
      each(name, value, at + key + "." + name + ".");
    }
  }
};

NodeGpu gpu_from_json(const json& g, const std::string& at, const Reader& r) {
  NodeGpu gpu;
  read_present_fields(g, gpu, kGpuNumbers, r.failing(at));
  read_present_fields(g, gpu, kGpuFlags, r.failing(at));
  r.members(g, kStaging, at, [&](const std::string& file, const json& arms, const std::string& file_at) {
    auto& figures = gpu.staging[file];
    for (const auto& [arm, f] : arms.items()) {
      const std::string arm_at = file_at + arm + ".";
      if (!f.is_object()) r.fail(file_at + arm, "expected a map");
      StagingFigure& figure = figures[arm];
      read_present_fields(f, figure, kFigureIntegers, r.failing(arm_at));
      read_present_fields(f, figure, kFigureNumbers, r.failing(arm_at));
      read_present_fields(f, figure, kFigureTexts, r.failing(arm_at));
    }
  });
  return gpu;
}

void read_steps(const json& j, NodeCheckSummary& s, const Reader& r) {
  auto it = j.find(kSteps);
  if (it == j.end()) return;
  if (!it->is_array()) r.fail(kSteps, "expected a list");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string at = fmt::format("steps[{}].", i);
    const json& line = (*it)[i];
    if (!line.is_object()) r.fail(at.substr(0, at.size() - 1), "expected a map");
    NodeCheckStep step;
    read_present_fields(line, step, kStepTexts, r.failing(at));
    read_present_fields(line, step, kStepNumbers, r.failing(at));
    s.steps.push_back(std::move(step));
  }
}

}  // namespace

bool looks_like_node_check(const json& j) {
  auto it = j.is_object() ? j.find(kKindKey) : j.end();
  return j.is_object() && it != j.end() && *it == kNodeCheckKind;
}

NodeCheckSummary node_check_from_json(const json& j, const std::string& path) {
  const Reader r{path};
  if (!looks_like_node_check(j)) r.fail(kKindKey, fmt::format("expected \"{}\"", kNodeCheckKind));
  NodeCheckSummary s;
  auto v = j.find(kSchemaVersionKey);
  if (v == j.end() || !v->is_number_integer() || *v != kNodeCheckSchemaVersion)
    r.fail(kSchemaVersionKey, fmt::format("{} is not {} (the node check summary this placebench reads)",
                                       v == j.end() ? "missing" : v->dump(), kNodeCheckSchemaVersion));
  read_steps(j, s, r);
  read_present_fields(j, s, kSummaryLists, r.failing(""));
  read_present_fields(j, s, kSummaryOptionalTexts, r.failing(""));
  read_present_fields(j, s, kSummaryFlags, r.failing(""));
  read_present_fields(j, s, kSummaryTexts, r.failing(""));
  r.members(j, kGpus, "", [&](const std::string& gpu, const json& g, const std::string& at) {
    s.gpus[gpu] = gpu_from_json(g, at, r);
  });
  auto c = j.find(kCollective);
  if (c != j.end() && !c->is_null()) {
    if (!c->is_object()) r.fail(kCollective, "expected a map or null");
    NodeCollective& col = s.collective.emplace();
    read_present_fields(*c, col, kCollectiveNumbers, r.failing("collective."));
    read_present_fields(*c, col, kCollectiveIntegers, r.failing("collective."));
  }
  return s;
}

}  // namespace placebench::harness::check
