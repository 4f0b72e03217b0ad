// `placebench check` evaluation: references with tolerances and units, expectations on the ratio (time and
// throughput statistics, each basis) and on verdicts, missing classes/arms, and reading a run directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;
using namespace placebench::harness::check;
using nlohmann::json;

namespace {

ArmAnalysis arm(const std::string& name, double median, std::optional<double> ratio, double ci_lo, double ci_hi,
                const std::string& verdict) {
  ArmAnalysis a;
  a.arm = name;
  a.role = verdict == "baseline" ? "baseline" : "compared";
  a.measured = true;
  a.median_ns = median;
  a.p90_ns = median * 1.1;
  a.p99_ns = median * 1.5;
  a.mean_ns = median;
  a.n_rounds = 6;
  a.compared = ratio.has_value();
  a.ratio_pct = ratio.value_or(0);
  a.ratio_lo = ci_lo;
  a.ratio_hi = ci_hi;
  a.verdict = verdict;
  return a;
}

RunEvidence evidence(const std::string& statistic = "median") {
  ClassAnalysis c;
  c.name = "c";
  c.baseline = "local";
  c.statistic = statistic;
  c.arms = {arm("local", 1000, std::nullopt, 0, 0, "baseline"), arm("remote", 1100, 10.0, 4.0, 12.0, "slower"),
            arm("unpinned", 1000, 0.5, -1.0, 2.0, "inconclusive")};
  RunSummary summary{{c}, true, 4};
  auto trial = [](const std::string& arm_name, double bytes_per_s) {
    TrialRecord t;
    t.class_name = "c";
    t.arm = arm_name;
    t.summary = {{"bytes_per_s", bytes_per_s}};
    return t;
  };
  std::vector<TrialRecord> trials = {trial("local", 1e9), trial("local", 3e9), trial("local", 2e9), trial("remote", 9e9)};
  return {"run", summary, trials, {}, false, {}};
}

MetricReference ref(const std::string& metric, double target, std::optional<double> lo, std::optional<double> hi,
                    const std::string& unit, const std::string& arm_name = "local") {
  return {"c", arm_name, metric, target, lo, hi, unit, "r", "ref.yaml:1"};
}

Expectation slower(const std::string& arm_name, double max_pct, RatioBasis basis) {
  Expectation x;
  x.class_name = "c";
  x.arm = arm_name;
  x.max_slower_pct = max_pct;
  x.basis = basis;
  x.name = "x";
  return x;
}

CheckResult one(const ReferenceFile& f, const RunEvidence& ev) {
  CheckReport r = evaluate_checks(f, ev);
  EXPECT_EQ(r.checks.size(), 1u);
  return r.checks.at(0);
}

ReferenceFile refs(std::vector<MetricReference> r) { return {"ref.yaml", false, std::move(r), {}, {}, {}}; }
ReferenceFile exps(std::vector<Expectation> x) { return {"ref.yaml", false, {}, std::move(x), {}, {}}; }

}  // namespace

TEST(CheckEvaluate, ReferenceWithinAndOutsideTolerance) {
  RunEvidence ev = evidence();
  CheckResult c = one(refs({ref("median", 1.0, -0.1, 0.1, "us")}), ev);
  EXPECT_TRUE(c.passed) << c.message;
  EXPECT_EQ(c.actual, "1 us");
  EXPECT_EQ(c.expected, "1 us (-10%, +10%): [0.9, 1.1] us");
  c = one(refs({ref("median", 0.8, -0.1, 0.1, "us")}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.message, "median = 1 us is above the reference 0.8 us by +25.0%");
  c = one(refs({ref("p99", 1200, std::nullopt, 0.0, "ns")}), ev);  // 1500 > 1200, no lower bound
  EXPECT_FALSE(c.passed);
  c = one(refs({ref("p99", 2000, std::nullopt, 0.0, "ns")}), ev);
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.expected, "2000 ns (no lower bound, +0%): [-inf, 2000] ns");
  // Bounds are inclusive: 1000 ns exactly at target x (1 - 0.5) = 1000.
  EXPECT_TRUE(one(refs({ref("median", 2000, -0.5, std::nullopt, "ns")}), ev).passed);
}

TEST(CheckEvaluate, TrialFieldsUseTheMedianOverTrials) {
  RunEvidence ev = evidence();
  CheckResult c = one(refs({ref("trials.bytes_per_s", 2, -0.01, 0.01, "GB/s")}), ev);
  EXPECT_TRUE(c.passed) << c.message;
  EXPECT_EQ(c.actual, "2 GB/s");
  c = one(refs({ref("trials.wait_ns_median", 2, -0.01, 0.01, "us")}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.message.find("no trial of c/local has a numeric summary field 'wait_ns_median'"), std::string::npos);
}

TEST(CheckEvaluate, MissingClassOrArmFails) {
  RunEvidence ev = evidence();
  MetricReference r = ref("median", 1, -0.1, 0.1, "us");
  r.class_name = "nope";
  CheckResult c = one(refs({r}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.message, "class 'nope' is not in the run (classes: c)");
  c = one(refs({ref("median", 1, -0.1, 0.1, "us", "cpu-local-mem-remote")}), ev);
  EXPECT_EQ(c.message, "arm 'cpu-local-mem-remote' is not in class 'c' (arms: local, remote, unpinned)");
}

TEST(CheckEvaluate, MaxSlowerOnEachBasis) {
  RunEvidence ev = evidence();  // remote: +10% [+4, +12]
  EXPECT_FALSE(one(exps({slower("remote", 5, RatioBasis::kEstimate)}), ev).passed);
  EXPECT_TRUE(one(exps({slower("remote", 10, RatioBasis::kEstimate)}), ev).passed);
  EXPECT_FALSE(one(exps({slower("remote", 11, RatioBasis::kCiUpper)}), ev).passed);
  EXPECT_TRUE(one(exps({slower("remote", 12, RatioBasis::kCiUpper)}), ev).passed);
  EXPECT_TRUE(one(exps({slower("remote", 5, RatioBasis::kCiLower)}), ev).passed);
  CheckResult c = one(exps({slower("remote", 3, RatioBasis::kCiLower)}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.message, "c/remote is +4.00% slower than local (ci_lower), more than the allowed +3.00%");
  EXPECT_EQ(c.actual, "step time +10.00%, CI [+4.00%, +12.00%]");
  // +0.5% [-1, +2]: within 1% on the estimate, not proven within it on the CI's slow end.
  EXPECT_TRUE(one(exps({slower("unpinned", 1, RatioBasis::kEstimate)}), ev).passed);
  EXPECT_FALSE(one(exps({slower("unpinned", 1, RatioBasis::kCiUpper)}), ev).passed);
  // No ratio yet (fewer than 2 paired rounds): nothing to judge on any basis.
  ev.summary->classes[0].arms[2].compared = false;
  c = one(exps({slower("unpinned", 1, RatioBasis::kEstimate)}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.actual, "no ratio");
  c = one(exps({slower("local", 1, RatioBasis::kEstimate)}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.message.find("is the baseline"), std::string::npos);
}

TEST(CheckEvaluate, ThroughputRatiosBecomeStepTimeChanges) {
  RunEvidence ev = evidence("throughput");  // remote's throughput +10% [+4, +12]: step time 100/1.1 - 100 = -9.09%
  CheckResult c = one(exps({slower("remote", -9, RatioBasis::kEstimate)}), ev);
  EXPECT_TRUE(c.passed) << c.actual;
  EXPECT_EQ(c.actual, "step time -9.09%, CI [-10.71%, -3.85%] (from the throughput ratio)");
  EXPECT_FALSE(one(exps({slower("remote", -5, RatioBasis::kCiUpper)}), ev).passed);  // slow end -3.85%
}

TEST(CheckEvaluate, VerdictsAndCompleteness) {
  RunEvidence ev = evidence();
  Expectation v;
  v.class_name = "c";
  v.arm = "remote";
  v.verdicts = {"equivalent", "faster"};
  v.name = "v";
  CheckResult c = one(exps({v}), ev);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.actual, "verdict slower");
  v.verdicts.push_back("slower");
  EXPECT_TRUE(one(exps({v}), ev).passed);
  ReferenceFile f = exps({v});
  f.require_complete = true;
  ev.summary->complete = false;
  CheckReport r = evaluate_checks(f, ev);
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_EQ(r.checks[0].name, "run complete");
  EXPECT_FALSE(r.checks[0].passed);
  EXPECT_EQ(r.failures(), 1);
}

// Issue 26: a failed A/A control fails `check` whatever the reference asks, and a verdict's warnings
// (what later rounds found) are said beside it.
TEST(CheckEvaluate, AFailedAaControlIsAFailingCheck) {
  RunEvidence ev = evidence();
  ArmAnalysis& remote = ev.summary->classes[0].arms[1];
  Expectation v;
  v.class_name = "c";
  v.arm = "unpinned";
  v.verdicts = {"inconclusive"};
  v.name = "v";
  EXPECT_EQ(evaluate_checks(exps({v}), ev).failures(), 0);
  remote.role = "control";
  remote.verdict = "control";
  remote.aa_check = "failed";
  CheckReport r = evaluate_checks(exps({v}), ev);
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_EQ(r.checks[0].name, "A/A control c/remote");
  EXPECT_FALSE(r.checks[0].passed);
  EXPECT_NE(r.checks[0].message.find("failed A/A check: c/remote"), std::string::npos) << r.checks[0].message;
  EXPECT_NE(r.checks[0].message.find("[+4.00, +12.00]%"), std::string::npos) << r.checks[0].message;
  EXPECT_EQ(r.failures(), 1);
  remote.aa_check = "passed";
  EXPECT_EQ(evaluate_checks(exps({v}), ev).failures(), 0);
  ArmAnalysis& unpinned = ev.summary->classes[0].arms[2];
  unpinned.verdict_warnings = {"placement not verified in 1 of 40 trials after the deciding look (20 rounds)"};
  const CheckResult c = one(exps({v}), ev);
  EXPECT_TRUE(c.passed);
  EXPECT_NE(c.actual.find("; warning: placement not verified"), std::string::npos) << c.actual;
}

TEST(CheckEvaluate, ReadsTheCommittedRunAndRecomputesAMissingSummary) {
  std::string fixture = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/results/tiny-run";
  RunEvidence ev = load_run_evidence(fixture);
  EXPECT_TRUE(ev.summary->complete);
  EXPECT_FALSE(ev.trials.empty());
  std::string copy = ::testing::TempDir() + "/pb-check-nosummary-" + std::to_string(::getpid());
  std::filesystem::remove_all(copy);
  std::filesystem::create_directories(copy);
  for (const char* f : {"run.json", "trials.jsonl"}) std::filesystem::copy_file(fixture + "/" + f, copy + "/" + f);
  RunEvidence again = load_run_evidence(copy);
  EXPECT_FALSE(again.summary->complete);
  EXPECT_EQ(again.summary->classes[0].arms.size(), ev.summary->classes[0].arms.size());
  EXPECT_THROW(load_run_evidence(::testing::TempDir() + "/pb-check-none"), InputError);
}
