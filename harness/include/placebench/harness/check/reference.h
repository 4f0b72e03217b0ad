// Reference files for `placebench check` (docs/reports.md): what a run must show, per class and arm.
// Two kinds of entries, each one check (one JUnit test case):
//   references:   a metric's value within a tolerance of a target, as in ReFrame's references
//                 (target, lower and upper fractions, unit): pass when target x (1 + lower) <= value <=
//                 target x (1 + upper); a null fraction leaves that side open;
//   expectations: an arm against the class's baseline: at most `max_slower_pct` slower (judged on the
//                 ratio estimate or a bound of its CI), or a verdict among `verdict`;
//   node_checks:  a GPU node check's figure (scripts/gpu-node-check.sh's summary.json) at least `min`,
//                 e.g. configs/references/h100.yaml: per-GPU pinned H2D/D2H, NCCL all-reduce busbw.
// Parsing validates everything once; errors are InputError naming file:line and the key.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace placebench::harness::check {

inline constexpr int kReferenceSchemaVersion = 1;

struct MetricReference {
  std::string class_name, arm;
  std::string metric;              // median, p90, p99, mean, ratio_pct, or trials.<summary field>
  double target = 0;               // in `unit`
  std::optional<double> lower;     // fraction in [-1, 0]; nullopt: no lower bound
  std::optional<double> upper;     // fraction >= 0; nullopt: no upper bound
  std::string unit;
  std::string name;                // test-case name (default "<class>/<arm> <metric>")
  std::string where;               // file:line of the entry
};

// Which number of the ratio's CI an expectation is judged on.
enum class RatioBasis {
  kEstimate,  // the Hodges-Lehmann estimate
  kCiUpper,   // the CI's slow end: passes only when the run proves the arm within the limit
  kCiLower,   // the CI's fast end: fails only when the run proves the arm beyond the limit
};

struct Expectation {
  std::string class_name, arm;
  std::optional<double> max_slower_pct;   // step time at most this many percent above the baseline's
  RatioBasis basis = RatioBasis::kEstimate;
  std::vector<std::string> verdicts;      // allowed verdicts (any when empty)
  std::string name;
  std::string where;
};

// The node check's figures a node_checks entry can name (kNodeMetrics), all in GB/s.
struct NodeCheck {
  std::string metric;  // staging_h2d_pinned_gbps, staging_d2h_pinned_gbps, nccl_allreduce_busbw_gbps
  double min = 0;      // GB/s; fails below
  std::string unit;    // "GB/s"
  std::string source;  // where the threshold comes from (cited in the report)
  std::string name;    // test-case name (default the metric)
  std::string where;
};
extern const std::vector<std::string> kNodeMetrics;

struct ReferenceFile {
  std::string path;
  bool require_complete = true;           // an interrupted run (complete: false) fails a check
  std::vector<MetricReference> references;
  std::vector<Expectation> expectations;
  std::vector<NodeCheck> node_checks;     // only against a GPU node check's summary
  std::string node;                       // what node type the file describes (informative)
};

ReferenceFile load_reference_file(const std::string& path);
// `text` is the YAML; `path` names it in error messages.
ReferenceFile parse_reference_text(const std::string& text, const std::string& path);

std::string basis_name(RatioBasis basis);

}  // namespace placebench::harness::check
