// summary.json: the one writer and the one reader (analysis.h). Every field the reader takes is checked
// first by detail::check_summary_json (results_checks.cpp), so the conversions below cannot throw.
#include <fmt/format.h>

#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/run_directory.h"
#include "results_checks.h"

namespace placebench::harness {
namespace {

using nlohmann::json;

json nullable(bool present, double v) { return present ? json(v) : json(nullptr); }
json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json pair_or_null(bool present, double lo, double hi) { return present ? json{lo, hi} : json(nullptr); }
json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::optional<double> opt_number(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? std::nullopt : std::optional<double>(it->get<double>());
}
// A [lo, hi] pair into lo, hi; false when null.
bool read_pair(const json& o, const char* key, double& lo, double& hi) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return false;
  lo = (*it)[0].get<double>();
  hi = (*it)[1].get<double>();
  return true;
}
std::string opt_text(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? "" : it->get<std::string>();
}

json arm_to_json(const ArmAnalysis& a) {
  return {{"arm", a.arm},
          {"role", a.role},
          {"realised", a.role == "baseline" || a.role == "compared"},
          {"unrealised_reason", text_or_null(a.unrealised_reason)},
          {"n_rounds", a.n_rounds},
          {"statistic_rounds", a.statistic_rounds},
          {"flagged_trials", a.flagged_trials},
          {"statistic_value", nullable(a.has_statistic, a.statistic_value)},
          {"statistic_ci", pair_or_null(a.has_statistic, a.statistic_ci_lo, a.statistic_ci_hi)},
          {"statistic_ci_confidence", nullable(a.has_statistic, a.statistic_ci_confidence)},
          {"statistic_ci_method", a.has_statistic ? json(a.statistic_ci_method) : json(nullptr)},
          {"median", nullable(a.measured, a.median_ns)},
          {"p90", nullable(a.measured, a.p90_ns)},
          {"p99", nullable(a.measured, a.p99_ns)},
          {"mean", nullable(a.measured, a.mean_ns)},
          {"within_run_median_ci", pair_or_null(a.measured, a.within_run_ci_lo, a.within_run_ci_hi)},
          {"ratio_pct", nullable(a.compared, a.ratio_pct)},
          {"ratio_ci_pct", pair_or_null(a.compared, a.ratio_lo, a.ratio_hi)},
          {"confidence", nullable(a.compared, a.look_confidence)},
          {"p_value", nullable(a.compared, a.p_value)},
          {"repeated_p", nullable(a.repeated_p)},
          {"holm_adjusted_p", nullable(a.holm_adjusted_p)},
          {"verdict", a.verdict},
          {"decided_look", a.decided_look ? json(*a.decided_look) : json(nullptr)},
          {"verdict_warnings", a.verdict_warnings},
          {"held", a.held},
          {"stop_reason", a.stop_reason},
          {"detectable_below_pct", nullable(a.detectable_below_pct)},
          {"detectable_pct", nullable(a.detectable_pct)},
          {"lag1", nullable(a.lag1)},
          {"dependence_flagged", a.dependence_flagged},
          {"ci_inflation", a.ci_inflation},
          {"effective_rounds", nullable(a.compared, a.effective_rounds)},
          {"aa_check", text_or_null(a.aa_check)}};
}

ArmAnalysis arm_from_json(const json& j) {
  ArmAnalysis a;
  a.arm = j.at("arm");
  a.role = j.at("role");
  a.unrealised_reason = opt_text(j, "unrealised_reason");
  a.n_rounds = j.at("n_rounds");
  // statistic_rounds and the verdict fields of issue 26 below may be absent or null (older summaries).
  a.statistic_rounds = static_cast<int>(opt_number(j, "statistic_rounds").value_or(0));
  a.flagged_trials = j.at("flagged_trials");
  a.has_statistic = opt_number(j, "statistic_value").has_value();
  if (a.has_statistic) {
    a.statistic_value = j.at("statistic_value");
    read_pair(j, "statistic_ci", a.statistic_ci_lo, a.statistic_ci_hi);
    a.statistic_ci_confidence = opt_number(j, "statistic_ci_confidence").value_or(0);
    a.statistic_ci_method = opt_text(j, "statistic_ci_method");
  }
  a.measured = opt_number(j, "median").has_value();
  if (a.measured) {
    a.median_ns = j.at("median");
    a.p90_ns = opt_number(j, "p90").value_or(0);
    a.p99_ns = opt_number(j, "p99").value_or(0);
    a.mean_ns = opt_number(j, "mean").value_or(0);
    read_pair(j, "within_run_median_ci", a.within_run_ci_lo, a.within_run_ci_hi);
  }
  a.compared = opt_number(j, "ratio_pct").has_value();
  if (a.compared) {
    a.ratio_pct = j.at("ratio_pct");
    read_pair(j, "ratio_ci_pct", a.ratio_lo, a.ratio_hi);
    a.look_confidence = opt_number(j, "confidence").value_or(0);
    a.p_value = opt_number(j, "p_value").value_or(1);
  }
  a.repeated_p = opt_number(j, "repeated_p");
  a.holm_adjusted_p = opt_number(j, "holm_adjusted_p");
  a.verdict = j.at("verdict");
  if (auto look = opt_number(j, "decided_look")) a.decided_look = static_cast<int>(*look);
  if (j.contains("verdict_warnings") && !j.at("verdict_warnings").is_null())
    a.verdict_warnings = j.at("verdict_warnings").get<std::vector<std::string>>();
  a.held = j.contains("held") && j.at("held").is_boolean() && j.at("held").get<bool>();
  a.stop_reason = j.at("stop_reason");
  a.detectable_below_pct = opt_number(j, "detectable_below_pct");
  a.detectable_pct = opt_number(j, "detectable_pct");
  a.lag1 = opt_number(j, "lag1");
  a.dependence_flagged = j.at("dependence_flagged");
  a.ci_inflation = j.at("ci_inflation");
  a.effective_rounds = opt_number(j, "effective_rounds").value_or(0);
  a.aa_check = opt_text(j, "aa_check");
  a.stop = a.stop_reason == "decided" || a.stop_reason == "max_rounds" || (a.role != "compared" && a.role != "baseline");
  return a;
}

}  // namespace

json summary_to_json(const RunSummary& s) {
  json cj = json::array();
  for (const auto& c : s.classes) {
    json arms = json::array();
    for (const auto& a : c.arms) arms.push_back(arm_to_json(a));
    cj.push_back({{"name", c.name},
                  {"baseline", c.baseline},
                  {"statistic", c.statistic},
                  {"statistic_unit", c.statistic_unit},
                  {"unit", "ns per step"},
                  {"margin_pct", c.margin_pct},
                  {"rounds_done", c.rounds_done},
                  {"looks", c.looks},
                  {"look_confidence", c.look_confidence},
                  {"boundary_z", c.boundary_z},
                  {"comparisons", c.comparisons},
                  {"family_confidence", c.family_confidence},
                  {"stop", c.stop},
                  {"stop_reason", c.stop_reason},
                  {"stop_words", c.stop_words},
                  {"holm_adjusted_p", nullable(c.holm_adjusted_p)},
                  {"noise_floor_pct", nullable(c.noise_floor_pct)},
                  {"warnings", c.warnings},
                  {"arms", arms}});
  }
  return {{"schema_version", kResultsSchemaVersion}, {"classes", cj}, {"complete", s.complete}, {"trials", s.trials}};
}

RunSummary summary_from_json(const json& j, const std::string& path, const std::string& fix) {
  detail::check_summary_json(j, path, fix);
  RunSummary s;
  s.complete = j.at("complete");
  s.trials = j.at("trials");
  for (const json& c : j.at("classes")) {
    ClassAnalysis ca;
    ca.name = c.at("name");
    ca.baseline = c.at("baseline");
    ca.statistic = c.at("statistic");
    ca.statistic_unit = c.at("statistic_unit");
    ca.margin_pct = c.at("margin_pct");
    ca.rounds_done = c.at("rounds_done");
    ca.looks = c.at("looks").get<std::vector<int>>();
    ca.look_confidence = c.at("look_confidence");
    ca.boundary_z = c.at("boundary_z");
    ca.comparisons = c.at("comparisons");
    ca.family_confidence = c.at("family_confidence");
    ca.stop = c.at("stop");
    ca.stop_reason = c.at("stop_reason");
    ca.stop_words = c.at("stop_words");
    ca.holm_adjusted_p = opt_number(c, "holm_adjusted_p");
    ca.noise_floor_pct = opt_number(c, "noise_floor_pct");
    ca.warnings = c.at("warnings").get<std::vector<std::string>>();
    for (const json& a : c.at("arms")) ca.arms.push_back(arm_from_json(a));
    s.classes.push_back(std::move(ca));
  }
  return s;
}

}  // namespace placebench::harness
