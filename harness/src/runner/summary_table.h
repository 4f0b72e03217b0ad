// The one description of summary.json's fields (docs/results-schema.md): each key spelled once, with its
// kind, its range and the RunSummary / ClassAnalysis / ArmAnalysis member it holds, in the order the
// check reads them (the written JSON sorts its keys). Each use is a visitor of this description:
//   SummaryWriter, SummaryReader (summary_json.cpp):  summary_to_json and summary_from_json;
//   FieldCheck (results_checks.cpp):                 check_summary_json, every error "PATH: KEY: problem; FIX";
//   NumberLookup, FieldList (summary_json.cpp):      arm_number (check's metrics) and summary_field_list (the
//                                                    report's spec is compared with it, tests/report).
// Adding a field is one line here, plus its use.
//
// A visitor has, for one key of the object it visits:
//   text(key, s)                        a string
//   choice(key, s, accepted)            one of `accepted`
//   nullable_choice(key, s, accepted)   one of `accepted`, or null ("" in the record)
//   nullable_text(key, s)               a string, or null ("" in the record)
//   boolean(key, b)
//   integer(key, n, lo)                 a whole number >= lo
//   nullable_integer(key, n, lo)        ... or null (std::optional<int>)
//   number(key, x, lo, hi)              a finite number in [lo, hi]
//   nullable_number(key, x, lo)         a number >= lo, or null (std::optional<double>)
//   strings(key, list)                  a list of strings
//   looks(key, list)                    strictly increasing whole numbers >= 1, at least one
//   derived(key, value)                 written from other fields (a boolean), checked, never read back
//   constant(key, text)                 written as is, neither checked nor read
// and, for the groups of fields that hold only when a flag of the record is set (an arm with a
// statistic, measured steps, a comparison), with `flag` that member and `use` its role:
//   gated_number(key, x, flag, use, lo)          null when !flag; use kSets: the key's value sets flag
//   gated_pair(key, lo_x, hi_x, flag, lo)        [low, high] with lo <= low <= high, or null when !flag
//   gated_text(key, s, flag)                     a string (maybe ""), or null when !flag
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "placebench/harness/runner/analysis.h"

namespace placebench::harness::detail {

enum class Gate { kSets, kFollows };

// The accepted values of the choices.
inline const std::vector<std::string>& arm_choices() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (Arm a : all_arms()) v.push_back(arm_name(a));
    return v;
  }();
  return names;
}
inline const std::vector<std::string> kRoleChoices = {"baseline", "compared", "control", "unrealised"};
inline const std::vector<std::string> kVerdictChoices = {"baseline", "faster", "slower", "equivalent", "inconclusive",
                                                         "control", "unrealised"};
inline const std::vector<std::string> kArmStopChoices = {"", "before_first_look", "continue", "decided", "max_rounds"};
inline const std::vector<std::string> kClassStopChoices = {"before_first_look", "continue", "decided", "max_rounds"};
inline const std::vector<std::string> kStatisticChoices = {"median", "p99", "throughput"};
inline const std::vector<std::string> kStatisticUnitChoices = {"ns", "steps/s"};
inline const std::vector<std::string> kAaCheckChoices = {"passed", "failed"};

// The top of summary.json (beside schema_version, checked first, and classes, a list of class_fields).
template <class V, class S>
void summary_fields(V&& v, S& s) {
  v.boolean("complete", s.complete);
  v.integer("trials", s.trials, 0);
}

// One class (beside arms, a list of arm_fields).
template <class V, class C>
void class_fields(V&& v, C& c) {
  v.text("name", c.name);
  v.choice("baseline", c.baseline, arm_choices());
  v.choice("statistic", c.statistic, kStatisticChoices);
  v.choice("statistic_unit", c.statistic_unit, kStatisticUnitChoices);
  v.constant("unit", "ns per step");
  v.number("margin_pct", c.margin_pct, 0, INFINITY);
  v.integer("rounds_done", c.rounds_done, 0);
  v.looks("looks", c.looks);
  v.number("look_confidence", c.look_confidence, 0, 1);
  v.number("boundary_z", c.boundary_z, 0, INFINITY);
  v.integer("comparisons", c.comparisons, 1);
  v.number("family_confidence", c.family_confidence, 0, 1);
  v.boolean("stop", c.stop);
  v.choice("stop_reason", c.stop_reason, kClassStopChoices);
  v.text("stop_words", c.stop_words);
  v.nullable_number("holm_adjusted_p", c.holm_adjusted_p, -INFINITY);
  v.nullable_number("noise_floor_pct", c.noise_floor_pct, -INFINITY);
  v.strings("warnings", c.warnings);
}

// One arm: the fields every summary holds. Step times (ns) and their statistic (ns, or steps/s) are
// never negative; a ratio in percent has any sign.
template <class V, class A>
void arm_fields(V&& v, A& a) {
  v.choice("arm", a.arm, arm_choices());
  v.choice("role", a.role, kRoleChoices);
  v.derived("realised", a.role == "baseline" || a.role == "compared");
  v.nullable_text("unrealised_reason", a.unrealised_reason);
  v.choice("verdict", a.verdict, kVerdictChoices);
  v.choice("stop_reason", a.stop_reason, kArmStopChoices);
  v.integer("n_rounds", a.n_rounds, 0);
  v.integer("flagged_trials", a.flagged_trials, 0);
  v.gated_number("statistic_ci_confidence", a.statistic_ci_confidence, a.has_statistic, Gate::kFollows, -INFINITY);
  v.gated_number("ratio_pct", a.ratio_pct, a.compared, Gate::kSets, -INFINITY);
  v.gated_number("confidence", a.look_confidence, a.compared, Gate::kFollows, -INFINITY);
  v.gated_number("p_value", a.p_value, a.compared, Gate::kFollows, -INFINITY);
  v.nullable_number("repeated_p", a.repeated_p, -INFINITY);
  v.nullable_number("holm_adjusted_p", a.holm_adjusted_p, -INFINITY);
  v.nullable_number("detectable_pct", a.detectable_pct, -INFINITY);
  v.nullable_number("lag1", a.lag1, -INFINITY);
  v.gated_number("statistic_value", a.statistic_value, a.has_statistic, Gate::kSets, 0);
  v.gated_number("median", a.median_ns, a.measured, Gate::kSets, 0);
  v.gated_number("p90", a.p90_ns, a.measured, Gate::kFollows, 0);
  v.gated_number("p99", a.p99_ns, a.measured, Gate::kFollows, 0);
  v.gated_number("mean", a.mean_ns, a.measured, Gate::kFollows, 0);
  v.gated_text("statistic_ci_method", a.statistic_ci_method, a.has_statistic);
  v.gated_pair("statistic_ci", a.statistic_ci_lo, a.statistic_ci_hi, a.has_statistic, 0);
  v.gated_pair("within_run_median_ci", a.within_run_ci_lo, a.within_run_ci_hi, a.measured, 0);
  v.gated_pair("ratio_ci_pct", a.ratio_lo, a.ratio_hi, a.compared, -INFINITY);
  v.boolean("dependence_flagged", a.dependence_flagged);
  v.number("ci_inflation", a.ci_inflation, 1, INFINITY);
}

// One arm: the fields of issue 26, absent in summaries written before it (absent or null: the default).
template <class V, class A>
void arm_fields_added(V&& v, A& a) {
  v.integer("statistic_rounds", a.statistic_rounds, 0);
  v.nullable_integer("decided_look", a.decided_look, 1);
  v.strings("verdict_warnings", a.verdict_warnings);
  v.boolean("held", a.held);
  v.nullable_number("detectable_below_pct", a.detectable_below_pct, -INFINITY);
  v.gated_number("effective_rounds", a.effective_rounds, a.compared, Gate::kFollows, 0);
  v.nullable_choice("aa_check", a.aa_check, kAaCheckChoices);
}

// ---- interference conditions (issue 32): only in classes that have them ----

inline const std::vector<std::string> kHogChoices = {"quiet", "membw", "cpu"};
inline const std::vector<std::string> kLoadedHogChoices = {"membw", "cpu"};
inline const std::vector<std::string> kHogNodeChoices = {"device", "other"};
inline const std::vector<std::string> kDoseUnitChoices = {"%/(GB/s)", "%/core"};
inline const std::vector<std::string> kLoadVerdictChoices = {"faster", "slower", "equivalent", "inconclusive"};

// A class entry's condition (the class's own entry, and each of its `conditions`).
template <class V, class C>
void class_condition_fields(V&& v, C& c) {
  v.text("condition", c.condition);
  v.choice("hog", c.hog, kHogChoices);
  v.nullable_choice("hog_node", c.hog_node, kHogNodeChoices);
  v.integer("hog_threads", c.hog_threads, 0);
  v.nullable_number("aggressor_gbps", c.aggressor_gbps, 0);
  v.nullable_number("aggressor_cores", c.aggressor_cores, 0);
}

// An arm under a loaded condition: its load comparison against the class's first condition.
template <class V, class A>
void arm_load_fields(V&& v, A& a) {
  v.gated_number("load_ratio_pct", a.load_ratio_pct, a.load_compared, Gate::kSets, -INFINITY);
  v.gated_pair("load_ratio_ci_pct", a.load_ratio_lo, a.load_ratio_hi, a.load_compared, -INFINITY);
  v.gated_number("load_confidence", a.load_confidence, a.load_compared, Gate::kFollows, 0);
  v.integer("load_rounds", a.load_rounds, 0);
  v.nullable_choice("load_verdict", a.load_verdict, kLoadVerdictChoices);
}

// One entry of a class's dose_response list.
template <class V, class D>
void dose_response_fields(V&& v, D& d) {
  v.choice("arm", d.arm, arm_choices());
  v.choice("hog", d.hog, kLoadedHogChoices);
  v.choice("node", d.node, kHogNodeChoices);
  v.choice("unit", d.unit, kDoseUnitChoices);
  v.integer("rounds", d.rounds, 1);
  v.number("slope_pct", d.slope_pct, -INFINITY, INFINITY);
  v.number("slope_ci_lo_pct", d.ci_lo, -INFINITY, INFINITY);
  v.number("slope_ci_hi_pct", d.ci_hi, -INFINITY, INFINITY);
  v.number("confidence", d.confidence, 0, 1);
  v.number("max_dose", d.max_dose, 0, INFINITY);
}

}  // namespace placebench::harness::detail
