// `placebench check`: compares a run's summary (and trials) against a reference file (see evaluate.h).
// Pure evaluation: every check becomes a CheckResult; printers.h renders them.
#include "placebench/harness/check/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "placebench/harness/check/metric_units.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/experiment_runner.h"
#include "placebench/harness/runner/summary_fields.h"
#include "placebench/stats/comparison.h"
#include "placebench/stats/quantile.h"

namespace placebench::harness::check {
namespace {

std::string num(double v) { return fmt::format("{:.4g}", v); }
std::string pct(double v) { return fmt::format("{:+.2f}%", v); }

// The names of `list`'s items (classes or arms), or "none".
template <class T>
std::string names_of(const std::vector<T>& list, std::string T::*name) {
  std::string out;
  for (const T& e : list) out += (out.empty() ? "" : ", ") + e.*name;
  return out.empty() ? "none" : out;
}

// The class and arm of the run's summary, or a failed result saying which is missing.
struct Found {
  const ClassAnalysis* cls = nullptr;
  const ArmAnalysis* arm = nullptr;
  std::string problem;
};

Found find_arm(const RunSummary& summary, const std::string& class_name, const std::string& arm) {
  Found f;
  for (const ClassAnalysis& c : summary.classes)
    if (c.name == class_name) f.cls = &c;
  if (!f.cls) {
    f.problem = fmt::format("class '{}' is not in the run (classes: {})", class_name,
                            names_of(summary.classes, &ClassAnalysis::name));
    return f;
  }
  for (const ArmAnalysis& a : f.cls->arms)
    if (a.arm == arm) f.arm = &a;
  if (!f.arm)
    f.problem = fmt::format("arm '{}' is not in class '{}' (arms: {})", arm, class_name, names_of(f.cls->arms, &ArmAnalysis::arm));
  return f;
}

// The metric's native value, or nullopt with `why` filled in. An arm's metric is its summary.json field
// of that name (summary_fields.h); trials.FIELD the median over the arm's trials.
std::optional<double> metric_value(const MetricReference& r, const ArmAnalysis& arm, const RunEvidence& run, std::string& why) {
  if (r.metric.rfind("trials.", 0) != 0) {
    std::optional<double> v = arm_number(arm, r.metric);
    if (!v) why = fmt::format("the arm has no {} yet (no trials)", r.metric);
    return v;
  }
  std::string field = r.metric.substr(7);
  std::vector<double> values;
  for (const TrialRecord& t : run.trials) {
    if (t.class_name != r.class_name || t.arm != r.arm) continue;
    auto v = t.summary.find(field);
    if (v != t.summary.end()) values.push_back(v->second);
  }
  if (values.empty()) {
    why = fmt::format("no trial of {}/{} has a numeric summary field '{}' (docs/results-schema.md lists them)", r.class_name,
                      r.arm, field);
    return std::nullopt;
  }
  return stats::median(values);
}

// An arm that was not realised (an A/A control or a placement not verified) is no evidence about its
// placement: a check of it fails with the reason, never passes. True when it did (c filled in).
bool refuse_unrealised(const ArmAnalysis& arm, const std::string& class_name, CheckResult& c) {
  if (arm.role != "control" && arm.role != "unrealised") return false;
  c.actual = arm.role == "control" ? "A/A control (degenerate)" : "unrealised";
  c.message = fmt::format("{}/{} was not measured under its own placement ({}): no evidence either way; run on a node "
                          "where the arm can be realised, or drop this check for such nodes",
                          class_name, arm.arm, arm.unrealised_reason.empty() ? "?" : arm.unrealised_reason);
  return true;
}

CheckResult evaluate_reference(const MetricReference& r, const RunEvidence& run) {
  CheckResult c{r.name, "reference", r.class_name, false, "", "", "", r.where};
  double lo = r.lower ? r.target * (1 + *r.lower) : -INFINITY;
  double hi = r.upper ? r.target * (1 + *r.upper) : INFINITY;
  c.expected = fmt::format("{} {} ({}, {}): [{}, {}] {}", num(r.target), r.unit,
                           r.lower ? fmt::format("{:+g}%", *r.lower * 100) : "no lower bound",
                           r.upper ? fmt::format("{:+g}%", *r.upper * 100) : "no upper bound",
                           r.lower ? num(lo) : "-inf", r.upper ? num(hi) : "+inf", r.unit);
  Found f = find_arm(*run.summary, r.class_name, r.arm);
  if (!f.arm) {
    c.actual = "missing";
    c.message = f.problem;
    return c;
  }
  if (refuse_unrealised(*f.arm, r.class_name, c)) return c;
  std::string why;
  auto native = metric_value(r, *f.arm, run, why);
  if (!native) {
    c.actual = "missing";
    c.message = why;
    return c;
  }
  double v = from_native(*native, r.metric, r.unit);
  c.actual = fmt::format("{} {}", num(v), r.unit);
  c.passed = v >= lo && v <= hi;
  if (!c.passed)
    c.message = fmt::format("{} = {} {} is {} the reference {} {} by {:+.1f}%", r.metric, num(v), r.unit,
                            v < lo ? "below" : "above", num(r.target), r.unit, (v / r.target - 1) * 100);
  return c;
}

// What an expectation asks, in words.
std::string expected_words(const Expectation& x, const std::string& baseline) {
  if (x.max_slower_pct) {
    const char* basis_words = x.basis == RatioBasis::kCiUpper   ? "the CI's slow end: proven within"
                              : x.basis == RatioBasis::kCiLower ? "the CI's fast end: fails only when proven beyond"
                                                                : "the ratio estimate";
    return fmt::format("step time at most {} against {} (judged on {})", pct(*x.max_slower_pct), baseline, basis_words);
  }
  std::string list;
  for (const auto& v : x.verdicts) list += (list.empty() ? "" : ", ") + v;
  return "verdict one of: " + list;
}

// What later rounds found after the verdict was decided (summary.json verdict_warnings): the verdict
// stands, and the check says so beside it.
std::string verdict_warnings_text(const ArmAnalysis& arm) {
  std::string out;
  for (const std::string& w : arm.verdict_warnings) out += "; warning: " + w;
  return out;
}

void check_verdict(const Expectation& x, const ArmAnalysis& arm, CheckResult& c) {
  c.actual = "verdict " + arm.verdict + (arm.held ? " (held: too few effective rounds to exclude dependence)" : "") +
             verdict_warnings_text(arm);
  c.passed = std::find(x.verdicts.begin(), x.verdicts.end(), arm.verdict) != x.verdicts.end();
  if (!c.passed) c.message = fmt::format("{}/{} got verdict '{}', not one of the allowed", x.class_name, x.arm, arm.verdict);
}

// The step-time change against the baseline (percent) and its CI, from the ratio of the class statistic
// (a compared arm has both).
struct Slowdown {
  double estimate = 0, lo = 0, hi = 0;
};

Slowdown slowdown_of(const ArmAnalysis& arm, bool throughput) {
  const double a = stats::step_time_pct(arm.ratio_lo, throughput), b = stats::step_time_pct(arm.ratio_hi, throughput);
  return {stats::step_time_pct(arm.ratio_pct, throughput), std::min(a, b), std::max(a, b)};
}

// At most max_slower_pct slower than the baseline, judged on the expectation's basis.
void check_slowdown(const Expectation& x, const ClassAnalysis& cls, const ArmAnalysis& arm, CheckResult& c) {
  if (x.arm == cls.baseline) {
    c.actual = "baseline";
    c.message =
        fmt::format("'{}' is the baseline of class '{}'; an expectation compares another arm with it", x.arm, x.class_name);
    return;
  }
  if (!arm.compared) {
    c.actual = "no ratio";
    c.message = fmt::format("{}/{} has no ratio yet ({} paired rounds; 2 are needed)", x.class_name, x.arm, arm.n_rounds);
    return;
  }
  const bool throughput = cls.statistic == "throughput";
  const Slowdown s = slowdown_of(arm, throughput);
  c.actual = fmt::format("step time {}, CI [{}, {}]{}", pct(s.estimate), pct(s.lo), pct(s.hi),
                         throughput ? " (from the throughput ratio)" : "");
  const double judged = x.basis == RatioBasis::kCiUpper ? s.hi : x.basis == RatioBasis::kCiLower ? s.lo : s.estimate;
  c.passed = judged <= *x.max_slower_pct;
  if (!c.passed)
    c.message = fmt::format("{}/{} is {} slower than {} ({}), more than the allowed {}", x.class_name, x.arm, pct(judged),
                            cls.baseline, basis_name(x.basis), pct(*x.max_slower_pct));
}

CheckResult evaluate_expectation(const Expectation& x, const RunEvidence& run) {
  CheckResult c{x.name, "expectation", x.class_name, false, "", "", "", x.where};
  Found f = find_arm(*run.summary, x.class_name, x.arm);
  const std::string baseline = f.cls ? f.cls->baseline : "baseline";
  c.expected = expected_words(x, baseline);
  if (!f.arm) {
    c.actual = "missing";
    c.message = f.problem;
    return c;
  }
  if (refuse_unrealised(*f.arm, x.class_name, c)) return c;
  if (x.max_slower_pct)
    check_slowdown(x, *f.cls, *f.arm, c);
  else
    check_verdict(x, *f.arm, c);
  return c;
}

// Every failed A/A check of the run (summary.json aa_check) is a failing check of its own, whatever the
// reference asks: identical placements that differ make the run's verdicts unreadable as placement effects.
void add_control_checks(const RunSummary& summary, const std::string& reference_path, CheckReport& report) {
  for (const ClassAnalysis& cls : summary.classes)
    for (const ArmAnalysis& arm : cls.arms) {
      if (arm.aa_check != "failed") continue;
      const std::string& name = cls.name;
      const std::string& a = arm.arm;
      const std::string ci_text = arm.compared ? fmt::format("[{:+.2f}, {:+.2f}]%", arm.ratio_lo, arm.ratio_hi) : "?";
      report.checks.push_back({fmt::format("A/A control {}/{}", name, a), "run", name, false,
                               fmt::format("{} (degenerate: the placement of {}) within noise of it: ratio CI holds 0", a,
                                           cls.baseline),
                               "ratio CI " + ci_text,
                               fmt::format("failed A/A check: {}/{} ran with the baseline's placement and differs from it "
                                           "(CI {} excludes 0); something other than placement moves this class's numbers "
                                           "(run order, a noisy or drifting machine): rerun on a quiet node", name, a, ci_text),
                               reference_path});
    }
}

}  // namespace

int CheckReport::failures() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [](const CheckResult& c) { return !c.passed && !c.unknown; }));
}

int CheckReport::unknowns() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [](const CheckResult& c) { return !c.passed && c.unknown; }));
}

RunEvidence load_run_evidence(const std::string& dir) {
  if (std::optional<RunEvidence> node = load_node_check_evidence(dir)) return std::move(*node);
  // run.json, its config copy, every trial line and summary.json are checked where they are read
  // (run_directory.h): damage is an InputError naming the file and the line or key.
  LoadedRun loaded = load_run(dir);
  if (loaded.trials.empty())
    throw InputError(fmt::format("{}/trials.jsonl: no trials yet (the run stopped before its first trial finished), so "
                                 "there is nothing to check; resume it with `placebench run --resume {}`", dir, dir));
  RunEvidence ev{dir, std::nullopt, std::move(loaded.trials), std::move(loaded.warnings), false, {}};
  if (loaded.summary) {
    // The runner writes summary.json after the trials it counts: more than trials.jsonl holds means lost lines.
    if (loaded.summary->trials > ev.trials.size())
      throw InputError(fmt::format("{}/summary.json records {} trials and trials.jsonl holds {}: trials were lost; "
                                   "restore trials.jsonl, or delete summary.json to check the trials left",
                                   dir, loaded.summary->trials, ev.trials.size()));
    ev.summary = std::move(loaded.summary);
  } else {
    // An interrupted run that never wrote its summary: the same statistics, recomputed.
    ev.summary = RunSummary{analyze_run(loaded.config, ev.trials), false, ev.trials.size()};
  }
  return ev;
}

CheckReport evaluate_checks(const ReferenceFile& reference, const RunEvidence& run) {
  CheckReport report{run.dir, reference.path, {}};
  if (run.node_check) {
    evaluate_node_checks(reference, run, report);
    return report;
  }
  if (!reference.node_checks.empty())
    throw InputError(fmt::format("{}: has node_checks: (a GPU node check's figures) and {} is a run; give the node "
                                 "check's output directory (scripts/gpu-node-check.sh --out)", reference.path, run.dir));
  if (reference.require_complete) {
    const bool complete = run.summary && run.summary->complete;
    report.checks.push_back({"run complete", "run", "", complete, "complete: true (every round the plan needed ran)",
                             complete ? "complete" : "interrupted (complete: false)",
                             complete ? "" : "the run was interrupted; resume it with `placebench run --resume DIR`",
                             reference.path});
  }
  if (!run.summary) throw InputError(fmt::format("{}: no run summary to check", run.dir));
  add_control_checks(*run.summary, reference.path, report);
  for (const auto& r : reference.references) report.checks.push_back(evaluate_reference(r, run));
  for (const auto& x : reference.expectations) report.checks.push_back(evaluate_expectation(x, run));
  return report;
}

}  // namespace placebench::harness::check
