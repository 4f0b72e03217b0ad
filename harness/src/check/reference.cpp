// Parsing and validation of `placebench check` reference files (see reference.h and docs/reports.md).
#include "placebench/harness/check/reference.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "placebench/harness/check/metric_units.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/yaml_check.h"

namespace placebench::harness::check {
namespace {

using detail::YamlContext;

const std::vector<std::string> kVerdicts = {"faster", "slower", "equivalent", "inconclusive"};

std::string where_of(const YamlContext& ctx, const YAML::Node& node) {
  return fmt::format("{}:{}", ctx.file, node.Mark().line >= 0 ? node.Mark().line + 1 : 0);
}

// A required key of an entry.
YAML::Node need(const YamlContext& ctx, const YAML::Node& entry, const std::string& where, const char* key) {
  YAML::Node n = entry[key];
  if (!n) ctx.fail(entry, where + "." + key, "missing; every entry needs it (see docs/reports.md)");
  return n;
}

std::optional<double> fraction(const YamlContext& ctx, const YAML::Node& n, const std::string& key, double min, double max) {
  if (n.IsNull()) return std::nullopt;
  return ctx.number(n, key, min, max);
}

MetricReference parse_reference(const YamlContext& ctx, const YAML::Node& e, const std::string& where) {
  ctx.check_keys(e, where, {"name", "class", "arm", "metric", "target", "lower", "upper", "unit"});
  MetricReference r;
  r.where = where_of(ctx, e);
  r.class_name = ctx.text(need(ctx, e, where, "class"), where + ".class");
  r.arm = ctx.text(need(ctx, e, where, "arm"), where + ".arm");
  YAML::Node metric = need(ctx, e, where, "metric");
  r.metric = ctx.text(metric, where + ".metric");
  if (!is_known_metric(r.metric))
    ctx.fail(metric, where + ".metric",
             fmt::format("'{}' is not a metric; accepted: median, p90, p99, mean (the arm's pooled step times), or "
                         "trials.FIELD (the median over the arm's trials of a numeric field of their summary, e.g. "
                         "trials.bytes_per_s); for ratios use an expectation (max_slower_pct)",
                         r.metric));
  r.target = ctx.number(need(ctx, e, where, "target"), where + ".target", 1e-300, 1e300);
  r.lower = fraction(ctx, need(ctx, e, where, "lower"), where + ".lower", -1, 0);
  r.upper = fraction(ctx, need(ctx, e, where, "upper"), where + ".upper", 0, 1e300);
  YAML::Node unit = need(ctx, e, where, "unit");
  r.unit = ctx.text(unit, where + ".unit");
  std::string unit_problem = unit_problem_for(r.metric, r.unit);
  if (!unit_problem.empty()) ctx.fail(unit, where + ".unit", unit_problem);
  r.name = e["name"] ? ctx.text(e["name"], where + ".name") : fmt::format("{}/{} {}", r.class_name, r.arm, r.metric);
  return r;
}

Expectation parse_expectation(const YamlContext& ctx, const YAML::Node& e, const std::string& where) {
  ctx.check_keys(e, where, {"name", "class", "arm", "max_slower_pct", "basis", "verdict"});
  Expectation x;
  x.where = where_of(ctx, e);
  x.class_name = ctx.text(need(ctx, e, where, "class"), where + ".class");
  x.arm = ctx.text(need(ctx, e, where, "arm"), where + ".arm");
  if (!e["max_slower_pct"] == !e["verdict"])
    ctx.fail(e, where, "give exactly one of max_slower_pct (a limit on the ratio to the baseline) or verdict (allowed verdicts)");
  if (e["max_slower_pct"]) {
    x.max_slower_pct = ctx.number(e["max_slower_pct"], where + ".max_slower_pct", -99.999, 1e9);
    if (e["basis"]) {
      std::string b = ctx.one_of(e["basis"], where + ".basis", {"estimate", "ci_upper", "ci_lower"});
      x.basis = b == "ci_upper" ? RatioBasis::kCiUpper : b == "ci_lower" ? RatioBasis::kCiLower : RatioBasis::kEstimate;
    }
  } else {
    if (e["basis"]) ctx.fail(e["basis"], where + ".basis", "only with max_slower_pct");
    YAML::Node v = e["verdict"];
    if (v.IsSequence()) {
      for (std::size_t i = 0; i < v.size(); ++i)
        x.verdicts.push_back(ctx.one_of(v[i], fmt::format("{}.verdict[{}]", where, i), kVerdicts));
    } else {
      x.verdicts.push_back(ctx.one_of(v, where + ".verdict", kVerdicts));
    }
    if (x.verdicts.empty()) ctx.fail(v, where + ".verdict", "give at least one allowed verdict");
  }
  std::string what = x.max_slower_pct ? fmt::format("at most {:g}% slower", *x.max_slower_pct) : "verdict";
  x.name = e["name"] ? ctx.text(e["name"], where + ".name") : fmt::format("{}/{} {}", x.class_name, x.arm, what);
  return x;
}

NodeCheck parse_node_check(const YamlContext& ctx, const YAML::Node& e, const std::string& where) {
  ctx.check_keys(e, where, {"name", "metric", "min", "unit", "source"});
  NodeCheck n;
  n.where = where_of(ctx, e);
  n.metric = ctx.one_of(need(ctx, e, where, "metric"), where + ".metric", kNodeMetrics);
  n.min = ctx.number(need(ctx, e, where, "min"), where + ".min", 0, 1e9);
  n.unit = ctx.one_of(need(ctx, e, where, "unit"), where + ".unit", {"GB/s"});
  n.source = e["source"] ? ctx.text(e["source"], where + ".source") : "";
  n.name = e["name"] ? ctx.text(e["name"], where + ".name") : n.metric;
  return n;
}

// The file's checks, from its parsed (and bounded) YAML.
ReferenceFile parse_reference_root(const YamlContext& ctx, const YAML::Node& root, const std::string& path) {
  if (!root.IsMap())
    throw InputError(path + ":1: a reference file is a mapping with references:, expectations: and/or node_checks: (see docs/reports.md)");
  ctx.check_keys(root, "", {"schema_version", "require_complete", "node", "references", "expectations", "node_checks"});
  ReferenceFile ref;
  ref.path = path;
  if (root["schema_version"]) {
    auto v = ctx.integer(root["schema_version"], "schema_version", 0, 1000000);
    if (v != kReferenceSchemaVersion)
      ctx.fail(root["schema_version"], "schema_version",
               fmt::format("{} is not a reference schema this placebench knows (it reads {})", v, kReferenceSchemaVersion));
  }
  if (root["require_complete"]) ref.require_complete = ctx.boolean(root["require_complete"], "require_complete");
  if (root["node"]) ref.node = ctx.text(root["node"], "node");
  for (const char* list : {"references", "expectations", "node_checks"}) {
    YAML::Node seq = root[list];
    if (!seq) continue;
    if (!seq.IsSequence()) ctx.fail(seq, list, "must be a list of entries (lines starting with '- ')");
    for (std::size_t i = 0; i < seq.size(); ++i) {
      std::string where = fmt::format("{}[{}]", list, i);
      if (std::string(list) == "references")
        ref.references.push_back(parse_reference(ctx, seq[i], where));
      else if (std::string(list) == "node_checks")
        ref.node_checks.push_back(parse_node_check(ctx, seq[i], where));
      else
        ref.expectations.push_back(parse_expectation(ctx, seq[i], where));
    }
  }
  if (ref.references.empty() && ref.expectations.empty() && ref.node_checks.empty())
    throw InputError(path + ":1: no checks; add entries under references:, expectations: or node_checks: (see docs/reports.md)");
  if (!ref.node_checks.empty() && !(ref.references.empty() && ref.expectations.empty()))
    throw InputError(path + ":1: node_checks: (a GPU node check's figures) cannot share a file with references: or "
                     "expectations: (a run's); split them into two files");
  return ref;
}

}  // namespace

const std::vector<std::string> kNodeMetrics = {"staging_h2d_pinned_gbps", "staging_d2h_pinned_gbps",
                                               "nccl_allreduce_busbw_gbps"};

std::string basis_name(RatioBasis basis) {
  switch (basis) {
    case RatioBasis::kCiUpper: return "ci_upper";
    case RatioBasis::kCiLower: return "ci_lower";
    default: return "estimate";
  }
}

ReferenceFile parse_reference_text(const std::string& text, const std::string& path) {
  YamlContext ctx{path};
  const YAML::Node root = detail::load_yaml_document(text, path);
  try {
    return parse_reference_root(ctx, root, path);
  } catch (const YAML::Exception& e) {
    detail::throw_yaml_input_error(e, path);
  }
}

ReferenceFile load_reference_file(const std::string& path) {
  return parse_reference_text(read_input_file(path, "give a YAML reference file (see docs/reports.md)", kMaxConfigBytes), path);
}

}  // namespace placebench::harness::check
