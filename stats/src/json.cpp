// JSON form of the statistics results (json.h). No I/O here: callers decide where the JSON goes.
#include "placebench/stats/json.h"

#include <cmath>
#include <string>

namespace placebench::stats {
namespace {

// nlohmann::json writes non-finite numbers as null; make that explicit so readers see the intent.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

void to_json(nlohmann::json& j, const QuantileCi& ci) {
  j = {{"q", ci.q},
       {"confidence", ci.confidence},
       {"n", ci.n},
       {"estimate", number(ci.estimate)},
       {"lower", number(ci.lower)},
       {"upper", number(ci.upper)},
       {"lower_rank", ci.lower_rank},
       {"upper_rank", ci.upper_rank},
       {"achieved_confidence", ci.achieved_confidence},
       {"coverage_met", ci.coverage_met},
       {"method", std::string(to_string(ci.method))}};
}

void to_json(nlohmann::json& j, const SampleSummary& s) {
  j = {{"n", s.n},           {"mean", number(s.mean)}, {"stddev", number(s.stddev)}, {"min", number(s.min)},
       {"max", number(s.max)}, {"median", s.median},   {"p90", s.p90},                {"p99", s.p99}};
}

void to_json(nlohmann::json& j, const ShiftCi& ci) {
  j = {{"estimate", number(ci.estimate)},
       {"lower", number(ci.lower)},
       {"upper", number(ci.upper)},
       {"count", ci.count},
       {"lower_rank", ci.lower_rank},
       {"upper_rank", ci.upper_rank},
       {"confidence", ci.confidence},
       {"achieved_confidence", ci.achieved_confidence},
       {"coverage_met", ci.coverage_met},
       {"method", std::string(to_string(ci.method))}};
}

void to_json(nlohmann::json& j, const RankTest& t) {
  j = {{"statistic", t.statistic}, {"p_value", t.p_value}, {"z", t.z},
       {"n_used", t.n_used},       {"has_ties", t.has_ties}, {"method", std::string(to_string(t.method))}};
}

void to_json(nlohmann::json& j, const PercentCi& ci) {
  j = {{"estimate", number(ci.estimate)},
       {"lower", number(ci.lower)},
       {"upper", number(ci.upper)},
       {"half_width", number(ci.half_width)}};
}

void to_json(nlohmann::json& j, const PairedComparison& c) {
  j = {{"rounds", c.rounds},
       {"zero_differences", c.zero_differences},
       {"log_ratio", c.log_ratio},
       {"ratio_pct", c.ratio_pct},
       {"wilcoxon", c.wilcoxon}};
}

void to_json(nlohmann::json& j, const UnpairedComparison& c) {
  j = {{"n_baseline", c.n_baseline},
       {"n_arm", c.n_arm},
       {"log_ratio", c.log_ratio},
       {"ratio_pct", c.ratio_pct},
       {"mann_whitney", c.mann_whitney}};
}

void to_json(nlohmann::json& j, const HolmAdjustment& h) {
  j = {{"alpha", h.alpha},
       {"adjusted_p", h.adjusted_p},
       {"reject", h.reject},
       {"step", h.step},
       {"step_confidence", h.step_confidence}};
}

void to_json(nlohmann::json& j, const Look& look) {
  j = {{"rounds", look.rounds},
       {"at_planned_look", look.at_planned_look},
       {"look_index", look.look_index},
       {"confidence", look.confidence},
       {"comparison", look.comparison},
       {"lag1", look.dependence.lag1 ? nlohmann::json(*look.dependence.lag1) : nlohmann::json(nullptr)},
       {"dependence_flagged", look.dependence.flagged},
       {"rho_upper", look.dependence.rho_upper},
       {"ci_inflation", look.dependence.ci_inflation},
       {"effective_rounds", look.dependence.effective_rounds},
       {"verdict", std::string(to_string(look.verdict))},
       {"held", look.held},
       {"stop_reason", std::string(to_string(look.reason))},
       {"detectable_pct", look.detectable ? nlohmann::json{look.detectable->below_pct, look.detectable->above_pct}
                                          : nlohmann::json(nullptr)}};
}

}  // namespace placebench::stats
