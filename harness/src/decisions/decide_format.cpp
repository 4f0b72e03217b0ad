// Console table and JSON of `placebench decide` (fields in docs/decisions.md). Times are minutes.
#include "placebench/harness/decisions/decide_format.h"

#include <fmt/format.h>

#include <cmath>

#include "placebench/harness/evidence.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;

// Minutes to 1e-4 (6 ms): enough for hand checks, free of binary noise in the JSON.
double round4(double v) { return std::round(v * 1e4) / 1e4; }

json ci_json(const Interval& i) { return json::array({round4(i.lo), round4(i.hi)}); }

// A time that never comes (a policy that cannot place the class) reads "never", not "inf".
std::string cell(const Interval& i, const char* sign = "", int decimals = 1) {
  if (!std::isfinite(i.est)) return i.est > 0 ? "never" : "-";
  const std::string spec = fmt::format("{{:{}.{}f}}", sign, decimals);
  std::string est = fmt::format(fmt::runtime(spec), i.est);
  if (std::abs(i.hi - i.lo) < 1e-9) return est;
  return fmt::format("{} [{}, {}]", est, fmt::format(fmt::runtime(spec), i.lo), fmt::format(fmt::runtime(spec), i.hi));
}

json policy_json(const PolicyOutcome& o) {
  json j;
  j["policy"] = std::string(policy_name(o.policy));
  j["remote_share"] = round4(o.remote_share);
  j["exec_min"] = round4(o.exec_min.est);
  j["exec_min_ci"] = ci_json(o.exec_min);
  j["queue_min"] = round4(o.queue_min);
  j["turnaround_min"] = round4(o.turnaround_min.est);
  j["turnaround_min_ci"] = ci_json(o.turnaround_min);
  j["gpu_min_per_job"] = round4(o.gpu_min_per_job.est);
  j["gpu_min_per_job_ci"] = ci_json(o.gpu_min_per_job);
  j["gpu_min_saved_vs_any"] = round4(o.gpu_min_saved_vs_any.est);
  j["gpu_min_saved_vs_any_ci"] = ci_json(o.gpu_min_saved_vs_any);
  j["gpu_pct_saved_vs_any"] = round4(o.gpu_pct_saved_vs_any.est);
  j["gpu_pct_saved_vs_any_ci"] = ci_json(o.gpu_pct_saved_vs_any);
  j["turnaround_delta_min_vs_any"] = round4(o.turnaround_delta_min_vs_any.est);
  j["turnaround_delta_min_vs_any_ci"] = ci_json(o.turnaround_delta_min_vs_any);
  j["cost_per_job"] = o.cost_per_job ? json(round4(o.cost_per_job->est)) : json(nullptr);
  j["cost_per_job_ci"] = o.cost_per_job ? ci_json(*o.cost_per_job) : json(nullptr);
  j["score"] = round4(o.score.est);
  j["score_ci"] = ci_json(o.score);
  return j;
}

json class_json(const ClassDecision& d) {
  json j;
  j["name"] = d.name;
  j["decidable"] = d.decidable;
  j["recommendation"] = d.recommendation;
  j["leaning"] = d.leaning ? json(std::string(policy_name(*d.leaning))) : json(nullptr);
  j["rationale"] = d.rationale;
  j["settle"] = d.settle.empty() ? json(nullptr) : json(d.settle);
  j["break_even_ratio_pct"] = d.break_even_pct ? json(round4(*d.break_even_pct)) : json(nullptr);
  j["reason"] = d.reason.empty() ? json(nullptr) : json(d.reason);
  j["policies"] = json::array();
  for (const auto& o : d.policies) j["policies"].push_back(policy_json(o));
  if (d.input) {
    const ClassInput& in = *d.input;
    j["inputs"] = {{"job_length_min", round4(in.job_length_min)},
                   {"gpus_per_job", in.gpus_per_job},
                   {"queue_min", {{"strict", round4(in.queue_min[0])}, {"prefer", round4(in.queue_min[1])}, {"any", round4(in.queue_min[2])}}},
                   {"objective", in.objective.label},
                   {"turnaround_weight", in.objective.turnaround_weight},
                   {"rate_per_gpu_hour", in.rate_per_gpu_hour ? json(*in.rate_per_gpu_hour) : json(nullptr)},
                   {"p_remote_any", in.p_remote_any},
                   {"p_local_prefer", in.p_local_prefer},
                   {"any_arm", in.remote.arm},
                   {"ratio_pct", round4(in.remote.pct)},
                   {"ratio_ci_pct", in.remote.lo_pct ? json::array({round4(*in.remote.lo_pct), round4(*in.remote.hi_pct)}) : json(nullptr)},
                   {"throughput_ratio_pct", in.remote.throughput_pct ? json(round4(*in.remote.throughput_pct)) : json(nullptr)},
                   {"verdict", in.remote.verdict.empty() ? json(nullptr) : json(in.remote.verdict)},
                   {"n_rounds", in.remote.n_rounds}};
    if (!in.remote.condition.empty()) {
      j["inputs"]["condition"] = in.remote.condition;
      j["inputs"]["under_load"] = in.remote.under_load;
    }
  } else {
    j["inputs"] = nullptr;
  }
  return j;
}

// Every column with its CI (--wide; about 150 columns).
std::string policy_rows_wide(const ClassDecision& d) {
  std::string out = fmt::format("  {:<7}{:>19}  {:>6}  {:>20}  {:>22}  {:>22}  {:>6}  {:>20}  {:>21}\n", "Policy", "Exec min",
                                "Queue", "Turnaround min", "GPU-min/job", "GPU-min saved vs any", "Saved%",
                                "Turnaround vs any", "Cost/job");
  for (const auto& o : d.policies)
    out += fmt::format("  {:<7}{:>19}  {:>6}  {:>20}  {:>22}  {:>22}  {:>6.1f}  {:>20}  {:>21}\n", policy_name(o.policy),
                       cell(o.exec_min), cell({o.queue_min, o.queue_min, o.queue_min}), cell(o.turnaround_min), cell(o.gpu_min_per_job),
                       cell(o.gpu_min_saved_vs_any), o.gpu_pct_saved_vs_any.est, cell(o.turnaround_delta_min_vs_any, "+"),
                       o.cost_per_job ? cell(*o.cost_per_job, "", 2) : "-");
  return out;
}

// The default: estimates, with the CI only on the saving the recommendation weighs (fits 100 columns).
std::string policy_rows(const ClassDecision& d) {
  const auto est = [](const Interval& i) { return cell({i.est, i.est, i.est}); };
  std::string out = fmt::format("  {:<7}{:>7}  {:>5}  {:>10}  {:>8}  {:>21}  {:>6}  {:>12}  {:>7}\n", "Policy", "Exec",
                                "Queue", "Turnaround", "GPU-min", "GPU-min saved vs any", "Saved%", "Turn. vs any",
                                "Cost");
  for (const auto& o : d.policies)
    out += fmt::format("  {:<7}{:>7}  {:>5}  {:>10}  {:>8}  {:>21}  {:>6.1f}  {:>12}  {:>7}\n", policy_name(o.policy),
                       est(o.exec_min), est({o.queue_min, o.queue_min, o.queue_min}), est(o.turnaround_min),
                       est(o.gpu_min_per_job), cell(o.gpu_min_saved_vs_any), o.gpu_pct_saved_vs_any.est,
                       cell({o.turnaround_delta_min_vs_any.est, o.turnaround_delta_min_vs_any.est,
                             o.turnaround_delta_min_vs_any.est}, "+"),
                       o.cost_per_job ? cell({o.cost_per_job->est, o.cost_per_job->est, o.cost_per_job->est}, "", 2) : "-");
  return out;
}

std::string class_table(const ClassDecision& d, bool wide) {
  std::string out = fmt::format("Class {}\n", d.name);
  if (!d.decidable) return out + fmt::format("  not decidable: {}\n", d.reason);
  const ClassInput& in = *d.input;
  std::string ratio = in.remote.lo_pct ? fmt::format("{:+.1f}% [{:+.1f}, {:+.1f}]", in.remote.pct, *in.remote.lo_pct, *in.remote.hi_pct)
                                       : fmt::format("{:+.1f}% (no CI)", in.remote.pct);
  if (in.remote.throughput_pct) ratio += fmt::format(" execution time (throughput {:+.1f}%)", *in.remote.throughput_pct);
  out += fmt::format("  {} vs local: {}{}   job: {:.1f} min local x {} GPU{}\n", in.remote.arm, ratio,
                     in.remote.verdict.empty() ? "" : fmt::format(" ({}, {} rounds)", in.remote.verdict, in.remote.n_rounds),
                     in.job_length_min, in.gpus_per_job, in.gpus_per_job == 1 ? "" : "s");
  if (!in.remote.condition.empty())
    out += fmt::format("  condition that drove the policy: {} (under_load: {})\n", escape_control(in.remote.condition),
                       in.remote.under_load);
  out += fmt::format("  objective: {} (score = exec + {:g} x queue)   any lands remote: {:g}   prefer finds local: {:g}{}\n",
                     in.objective.label, in.objective.turnaround_weight, in.p_remote_any, in.p_local_prefer,
                     in.rate_per_gpu_hour ? fmt::format("   rate: {:g}/GPU-h", *in.rate_per_gpu_hour) : "");
  out += wide ? policy_rows_wide(d) : policy_rows(d);
  out += fmt::format("  Recommendation: {}\n  {}\n", d.recommendation, d.rationale);
  return out;
}

}  // namespace

std::string decision_sentence(const ClassDecision& d) {
  const std::string name = escape_control(d.name);
  if (d.recommendation == "strict" || d.recommendation == "prefer" || d.recommendation == "any")
    return fmt::format("{}: use {}. {}", name, d.recommendation, d.rationale);
  if (d.recommendation == "inconclusive")
    return fmt::format("{}: no policy yet; settle it with {}.", name, d.settle.empty() ? "more rounds" : d.settle);
  return fmt::format("{}: no policy: {}.", name,
                     !d.reason.empty() ? d.reason : !d.rationale.empty() ? d.rationale : "placebench decide gave none");
}

std::string render_decide_table(const DecideReport& report, bool wide) {
  std::string out = fmt::format("Decisions: {}  (times in minutes; [lo, hi] is the CI carried from the measured ratio{})\n",
                                report.source, wide ? "" : "; --wide: every column with its CI");
  if (!report.classes.empty()) out += "\nIn short:\n";
  for (const auto& d : report.classes) out += "  " + decision_sentence(d) + "\n";
  for (const auto& d : report.classes) out += "\n" + class_table(d, wide);
  return out;
}

json decide_to_json(const DecideReport& report) {
  json j;
  j["schema_version"] = kDecideSchemaVersion;
  j["source"] = report.source;
  j["classes"] = json::array();
  for (const auto& d : report.classes) j["classes"].push_back(class_json(d));
  stamp_evidence(j);
  return j;
}

}  // namespace placebench::harness::decisions
