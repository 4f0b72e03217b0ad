// The policy model of `placebench decide` against hand-checked numbers (docs/decisions.md, worked example 1).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "placebench/harness/decisions/decide.h"
#include "placebench/harness/decisions/decide_format.h"
#include "placebench/harness/decisions/decide_input.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;
using namespace placebench::harness::decisions;

namespace {

// Locality saves 10% of execution: 54 min local, 60 min remote (+11.11%), CI of the ratio [+8.0%, +14.5%].
ClassInput training(const std::string& objective) {
  ClassInput in;
  in.name = "long-training";
  in.job_length_min = 54;
  in.gpus_per_job = 8;
  in.queue_min = {30, 10, 5};
  in.objective = parse_objective(objective, "test");
  in.rate_per_gpu_hour = 2.5;
  in.remote.pct = 100.0 / 9.0;
  in.remote.lo_pct = 8.0;
  in.remote.hi_pct = 14.5;
  in.remote.verdict = "slower";
  in.remote.n_rounds = 20;
  return in;
}

const PolicyOutcome& of(const ClassDecision& d, Policy p) { return d.policies.at(static_cast<std::size_t>(p)); }

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/decisions/" + rel; }

}  // namespace

TEST(Decide, WorkedExampleNumbers) {
  ClassDecision d = decide_class(training("efficiency"));
  const auto &strict = of(d, Policy::kStrict), &prefer = of(d, Policy::kPrefer), &any = of(d, Policy::kAny);
  EXPECT_NEAR(strict.exec_min.est, 54.0, 1e-9);
  EXPECT_NEAR(prefer.exec_min.est, 57.0, 1e-9);
  EXPECT_NEAR(any.exec_min.est, 60.0, 1e-9);
  EXPECT_NEAR(any.exec_min.lo, 58.32, 1e-9);
  EXPECT_NEAR(any.exec_min.hi, 61.83, 1e-9);
  EXPECT_NEAR(prefer.exec_min.lo, 56.16, 1e-9);
  EXPECT_NEAR(prefer.exec_min.hi, 57.915, 1e-9);
  EXPECT_NEAR(strict.turnaround_min.est, 84.0, 1e-9);
  EXPECT_NEAR(prefer.turnaround_min.est, 67.0, 1e-9);
  EXPECT_NEAR(any.turnaround_min.est, 65.0, 1e-9);
  EXPECT_NEAR(strict.gpu_min_per_job.est, 432.0, 1e-9);
  EXPECT_NEAR(prefer.gpu_min_per_job.est, 456.0, 1e-9);
  EXPECT_NEAR(any.gpu_min_per_job.est, 480.0, 1e-9);
  EXPECT_NEAR(strict.gpu_min_saved_vs_any.est, 48.0, 1e-9);
  EXPECT_NEAR(strict.gpu_min_saved_vs_any.lo, 34.56, 1e-9);
  EXPECT_NEAR(strict.gpu_min_saved_vs_any.hi, 62.64, 1e-9);
  EXPECT_NEAR(strict.gpu_pct_saved_vs_any.est, 10.0, 1e-9);
  EXPECT_NEAR(prefer.gpu_min_saved_vs_any.est, 24.0, 1e-9);
  EXPECT_NEAR(strict.turnaround_delta_min_vs_any.est, 19.0, 1e-9);
  EXPECT_NEAR(strict.turnaround_delta_min_vs_any.lo, 17.17, 1e-9);
  EXPECT_NEAR(strict.turnaround_delta_min_vs_any.hi, 20.68, 1e-9);
  EXPECT_NEAR(prefer.turnaround_delta_min_vs_any.est, 2.0, 1e-9);
  EXPECT_NEAR(prefer.turnaround_delta_min_vs_any.lo, 1.085, 1e-9);
  EXPECT_NEAR(prefer.turnaround_delta_min_vs_any.hi, 2.84, 1e-9);
  EXPECT_NEAR(any.turnaround_delta_min_vs_any.est, 0.0, 1e-9);
  EXPECT_NEAR(strict.cost_per_job->est, 18.0, 1e-9);
  EXPECT_NEAR(prefer.cost_per_job->est, 19.0, 1e-9);
  EXPECT_NEAR(any.cost_per_job->est, 20.0, 1e-9);
}

TEST(Decide, EfficiencyImprovesWhileTurnaroundWorsens) {
  ClassDecision eff = decide_class(training("efficiency"));
  EXPECT_EQ(eff.recommendation, "strict");
  EXPECT_GT(of(eff, Policy::kStrict).gpu_min_saved_vs_any.lo, 0.0);        // efficiency improves over the whole CI
  EXPECT_GT(of(eff, Policy::kStrict).turnaround_delta_min_vs_any.lo, 0.0);  // turnaround worsens over the whole CI
  ClassDecision turn = decide_class(training("turnaround"));
  EXPECT_EQ(turn.recommendation, "any");
  EXPECT_NE(turn.rationale.find("strict"), std::string::npos) << turn.rationale;
}

TEST(Decide, WeightBetweenObjectivesCanBeInconclusive) {
  // score = exec + 0.5 x queue: strict 69, prefer 62, any 62.5 at the estimate; at +8% any scores 60.82 < 61.16.
  ClassDecision d = decide_class(training("0.5"));
  EXPECT_EQ(d.recommendation, "inconclusive");
  ASSERT_TRUE(d.leaning.has_value());
  EXPECT_EQ(*d.leaning, Policy::kPrefer);
  ASSERT_TRUE(d.break_even_pct.has_value());
  EXPECT_NEAR(*d.break_even_pct, 250.0 / 27.0, 1e-9);  // 9.26%: 0.5 x (5 - 10) / (54 x (0.5 - 1))
  EXPECT_NE(d.settle.find("1.9%"), std::string::npos) << d.settle;  // |11.11 - 9.26| = 1.85
}

TEST(Decide, CiOnOneSideOfTheBreakEvenIsConclusive) {
  ClassInput in = training("0.5");
  in.remote.lo_pct = 10.0;  // break-even 9.26% lies below the CI
  EXPECT_EQ(decide_class(in).recommendation, "prefer");
}

TEST(Decide, NoCiWhatIfDecidesAtThePoint) {
  ClassInput in = training("efficiency");
  in.remote.lo_pct.reset();
  in.remote.hi_pct.reset();
  in.remote.verdict.clear();
  ClassDecision d = decide_class(in);
  EXPECT_EQ(d.recommendation, "strict");
  EXPECT_NEAR(of(d, Policy::kAny).exec_min.lo, 60.0, 1e-9);
  // A measured arm without a CI is not enough evidence.
  in.remote.verdict = "inconclusive";
  EXPECT_EQ(decide_class(in).recommendation, "inconclusive");
}

TEST(Decide, ProbabilitiesShapeThePolicies) {
  ClassInput in = training("efficiency");
  in.p_remote_any = 0.5;
  in.p_local_prefer = 0.8;
  ClassDecision d = decide_class(in);
  EXPECT_NEAR(of(d, Policy::kAny).exec_min.est, 57.0, 1e-9);           // 54 x (1 + 0.5 x 1/9)
  EXPECT_NEAR(of(d, Policy::kPrefer).exec_min.est, 54.0 * (1 + 0.1 / 9), 1e-9);  // w = 0.2 x 0.5
}

TEST(Decide, ObjectiveParsing) {
  EXPECT_EQ(parse_objective("turnaround", "x").turnaround_weight, 1.0);
  EXPECT_EQ(parse_objective("efficiency", "x").turnaround_weight, 0.0);
  EXPECT_EQ(parse_objective("0.25", "x").turnaround_weight, 0.25);
  EXPECT_THROW(parse_objective("1.5", "x"), InputError);
  EXPECT_THROW(parse_objective("speed", "x"), InputError);
}

TEST(DecideInput, RunDirectoryFixture) {
  DecideReport r = decide_run_directory(fixture("run-basic"), {});
  ASSERT_EQ(r.classes.size(), 3u);
  EXPECT_EQ(r.classes[0].name, "long-training");
  EXPECT_EQ(r.classes[0].recommendation, "strict");
  EXPECT_NEAR(r.classes[0].policies[0].gpu_min_saved_vs_any.est, 48.0, 1e-6);
  // eval: any 22.2 vs prefer 22.6 at +6%, prefer wins at +14%: break-even +10%, CI must narrow to +/-4%.
  EXPECT_EQ(r.classes[1].recommendation, "inconclusive");
  EXPECT_NEAR(*r.classes[1].break_even_pct, 10.0, 1e-9);
  EXPECT_NE(r.classes[1].settle.find("+/-4.0%"), std::string::npos) << r.classes[1].settle;
  EXPECT_FALSE(r.classes[2].decidable);
  EXPECT_EQ(r.classes[2].recommendation, "none");
  EXPECT_NE(r.classes[2].reason.find("no decision block"), std::string::npos);
  nlohmann::json j = decide_to_json(r);
  for (const char* key : {"policy", "exec_min", "queue_min", "turnaround_min", "gpu_min_per_job", "gpu_min_saved_vs_any",
                          "turnaround_delta_min_vs_any", "cost_per_job"})
    EXPECT_TRUE(j["classes"][0]["policies"][0].contains(key)) << key;
  EXPECT_EQ(j["classes"][0]["policies"][0]["cost_per_job"], 18.0);
  EXPECT_TRUE(j["classes"][1]["policies"][0]["cost_per_job"].is_null());
}

TEST(DecideInput, ThroughputRatiosBecomeExecutionTime) {
  // remote: +25% throughput [+20, +30] -> the job takes 1/1.25 = 0.8 of local: -20% [-23.08, -16.67].
  DecideReport r = decide_run_directory(fixture("run-throughput"), {});
  ASSERT_EQ(r.classes.size(), 1u);
  ASSERT_TRUE(r.classes[0].input);
  const RemoteRatio& remote = r.classes[0].input->remote;
  EXPECT_NEAR(remote.pct, -20.0, 1e-9);
  EXPECT_NEAR(*remote.lo_pct, 100.0 * (1 / 1.3 - 1), 1e-9);
  EXPECT_NEAR(*remote.hi_pct, 100.0 * (1 / 1.2 - 1), 1e-9);
  EXPECT_NEAR(*remote.throughput_pct, 25.0, 1e-9);
  // Remote placement is faster here, so taking it (any) costs nothing and saves queue time.
  EXPECT_EQ(r.classes[0].recommendation, "any");
  EXPECT_NEAR(r.classes[0].policies[2].exec_min.est, 48.0, 1e-6);  // 60 min x 0.8
  EXPECT_NE(render_decide_table(r).find("(throughput +25.0%)"), std::string::npos) << render_decide_table(r);
}

TEST(DecideInput, OverridesAndAnyArm) {
  DecideOverrides o;
  o.objective = parse_objective("turnaround", "x");
  o.any_arm = "unpinned";
  DecideReport r = decide_run_directory(fixture("run-basic"), o);
  EXPECT_EQ(r.classes[0].recommendation, "any");
  EXPECT_NEAR(r.classes[0].policies[2].exec_min.est, 54 * 1.04, 1e-6);
  EXPECT_FALSE(r.classes[1].decidable);  // eval has no unpinned arm
}

TEST(DecideInput, DecisionBlockValidation) {
  using nlohmann::json;
  json good = {{"job_length", "2h"}, {"gpus_per_job", 8}, {"queue", {{"strict", "30m"}, {"prefer", "10m"}, {"any", 300}}}};
  DecisionSpec s = parse_decision_json(good, "run.json: config.classes[0].decision");
  EXPECT_EQ(s.job_length_s, 7200);
  EXPECT_EQ(s.queue_s[2], 300);
  auto message = [&](json j) {
    try {
      parse_decision_json(j, "run.json: config.classes[0].decision");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json bad = good;
  bad["queue"].erase("prefer");
  EXPECT_NE(message(bad).find("queue: missing key 'prefer'"), std::string::npos) << message(bad);
  bad = good;
  bad["gpu_per_job"] = 1;
  EXPECT_NE(message(bad).find("decision.gpu_per_job: unknown key"), std::string::npos) << message(bad);
  bad = good;
  bad["objective"] = "fast";
  EXPECT_NE(message(bad).find("decision.objective: bad objective"), std::string::npos) << message(bad);
  bad = good;
  bad["p_local_prefer"] = 1.5;
  EXPECT_NE(message(bad).find("p_local_prefer"), std::string::npos);
}

TEST(DecideInput, YamlDecisionBlockNamesLine) {
  YAML::Node n = YAML::Load("decision:\n  job_length: 2h\n  gpus_per_job: 0\n  queue: {strict: 30m, prefer: 10m, any: 5m}\n");
  try {
    parse_decision_yaml(n["decision"], "configs/x.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("configs/x.yaml:3: decision.gpus_per_job"), std::string::npos) << e.what();
  }
  // One parser for both formats: the YAML is read as the JSON run.json keeps (and `decide` reads), with its lines.
  auto yaml_error = [](const std::string& text) {
    try {
      parse_decision_yaml(YAML::Load(text)["decision"], "c.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(yaml_error("decision: 5\n").rfind("c.yaml:1: decision: expected a mapping with job_length", 0), 0u)
      << yaml_error("decision: 5\n");
  EXPECT_EQ(yaml_error("decision:\n  job_length: 2h\n  gpus_per_job: 1\n  queue:\n    strict: 1m\n    any: 1m\n"),
            "c.yaml:5: decision.queue: missing key 'prefer'");
  EXPECT_EQ(yaml_error("decision:\n  job_length: 2h\n  gpus_per_job: \"8\"\n  queue: {strict: 1m, prefer: 1m, any: 1m}\n"),
            "c.yaml:3: decision.gpus_per_job: expected a number");  // as decide would read run.json's copy
  EXPECT_EQ(yaml_error("decision:\n  job_length: 2h\n  gpus_per_job: 1\n  queue: {strict: 1m, prefer: 1m, any: 1m}\n"
                       "  queues: 3\n"),
            "c.yaml:5: decision.queues: unknown key; accepted: job_length, gpus_per_job, queue {strict, prefer, any}, "
            "objective, rate_per_gpu_hour, p_remote_any, p_local_prefer, any_arm, under_load");
  YAML::Node ok = YAML::Load("decision: {job_length: 36m, gpus_per_job: 4, queue: {strict: 1h, prefer: 20m, any: 90s}, objective: 0.3}");
  DecisionSpec s = parse_decision_yaml(ok["decision"], "c.yaml");
  EXPECT_EQ(s.job_length_s, 2160);
  EXPECT_EQ(s.queue_s[2], 90);
  EXPECT_DOUBLE_EQ(s.objective.turnaround_weight, 0.3);
}

// A copy of the run-basic fixture whose summary.json the test rewrites: a directory of its own per test,
// process and copy (ctest -j runs the tests of this file at once, and other build trees share /tmp).
std::filesystem::path scratch_dir() {
  static int copies = 0;
  return std::filesystem::temp_directory_path() /
         ("pb_decide_scratch_" + std::to_string(::getpid()) + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + std::to_string(++copies));
}

struct ScratchRun {
  std::filesystem::path dir = scratch_dir();
  nlohmann::json summary;
  ScratchRun() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    for (const char* f : {"run.json", "summary.json", "trials.jsonl"})
      std::filesystem::copy_file(fixture(std::string("run-basic/") + f), dir / f);
    std::ifstream in(dir / "summary.json");
    summary = nlohmann::json::parse(in);
  }
  ~ScratchRun() { std::filesystem::remove_all(dir); }
  void write() { std::ofstream(dir / "summary.json") << summary.dump(2); }
  std::string error() {
    try {
      decide_run_directory(dir.string(), {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(DecideInput, MissingFilesAreBadInput) {
  EXPECT_THROW(decide_run_directory(fixture("no-such-run"), {}), InputError);
  ScratchRun run;
  EXPECT_EQ(run.error(), "");
  run.summary["classes"][0]["baseline"] = "unpinned";
  run.summary["classes"][0]["arms"][0]["arm"] = "unpinned";
  run.summary["classes"][0]["arms"][2]["arm"] = "local";
  run.write();
  DecideReport r = decide_run_directory(run.dir.string(), {});
  EXPECT_FALSE(r.classes[0].decidable);
  EXPECT_NE(r.classes[0].reason.find("against 'unpinned'"), std::string::npos);
  ScratchRun bad_ci;
  bad_ci.summary["classes"][0]["arms"][1]["ratio_ci_pct"] = {12.0, 13.0};  // does not hold ratio_pct 11.1
  bad_ci.write();
  EXPECT_NE(bad_ci.error().find("ratio_ci_pct: expected [lo, hi] with -100 < lo <= ratio_pct <= hi"), std::string::npos)
      << bad_ci.error();
}

TEST(DecideInput, AnUnknownSchemaVersionIsRefused) {
  ScratchRun run;
  run.summary["schema_version"] = 99;
  run.write();
  EXPECT_NE(run.error().find("summary.json: schema_version 99 is not the 2 this placebench reads"), std::string::npos)
      << run.error();
}

TEST(DecideInput, AnUnrealisedArmIsNeverDecidedFrom) {
  for (const char* role : {"control", "unrealised"}) {
    ScratchRun run;
    nlohmann::json& remote = run.summary["classes"][0]["arms"][1];
    ASSERT_EQ(remote["arm"], "remote");
    remote["role"] = role;
    remote["verdict"] = role;
    remote["realised"] = false;
    remote["unrealised_reason"] = "degenerate: it ran with the placement of local (an A/A control)";
    for (const char* key : {"detectable_pct", "repeated_p", "holm_adjusted_p"}) remote[key] = nullptr;  // no verdict
    remote["stop_reason"] = "";
    run.write();
    DecideReport r = decide_run_directory(run.dir.string(), {});
    EXPECT_FALSE(r.classes[0].decidable) << role;
    EXPECT_NE(r.classes[0].reason.find("the 'remote' arm was not realised"), std::string::npos) << r.classes[0].reason;
    EXPECT_TRUE(r.classes[1].decidable);  // the other classes are still decided
  }
}

// Issue 26: a class whose A/A control differs from the baseline is not decided from: its ratios are not
// placement effects.
TEST(DecideInput, AFailedAaControlKeepsItsClassUndecided) {
  ScratchRun run;
  nlohmann::json& unpinned = run.summary["classes"][0]["arms"][2];
  ASSERT_EQ(unpinned["arm"], "unpinned");
  unpinned["role"] = "control";
  unpinned["verdict"] = "control";
  unpinned["realised"] = false;
  unpinned["unrealised_reason"] = "degenerate: it ran with the placement of local (an A/A control)";
  for (const char* key : {"detectable_pct", "repeated_p", "holm_adjusted_p"}) unpinned[key] = nullptr;
  unpinned["stop_reason"] = "";
  unpinned["aa_check"] = "passed";
  run.write();
  EXPECT_TRUE(decide_run_directory(run.dir.string(), {}).classes[0].decidable);
  unpinned["aa_check"] = "failed";
  run.write();
  DecideReport r = decide_run_directory(run.dir.string(), {});
  EXPECT_FALSE(r.classes[0].decidable);
  EXPECT_NE(r.classes[0].reason.find("its A/A control 'unpinned' failed"), std::string::npos) << r.classes[0].reason;
  EXPECT_TRUE(r.classes[1].decidable);
}
