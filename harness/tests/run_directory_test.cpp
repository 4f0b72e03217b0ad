// The run directory survives crashes: appended lines are complete, a truncated last line is ignored
// (and repaired on resume), a damaged middle line or a foreign schema is a clear error. Every file read
// back is checked where it is read: a value of the wrong type is one InputError naming the file, the
// line or key and the fix, never a JSON library exception.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"

using namespace placebench::harness;
using nlohmann::json;

namespace {

// run.json as `placebench run` writes it, with one class "c" (baseline local, compare remote), 2..4 rounds.
json run_json() {
  ExperimentConfig cfg;
  cfg.source = "test.yaml";
  cfg.name = "test";
  cfg.min_rounds = 2;
  cfg.max_rounds = 4;
  cfg.steps = 3;
  ClassConfig c;
  c.name = "c";
  c.workload.type = "staging";
  c.compare = {Arm::kRemote};
  cfg.classes = {c};
  return {{"schema_version", kResultsSchemaVersion}, {"config", config_to_json(cfg)}};
}

json trial(int round, const std::string& arm = "local") {
  return {{"class", "c"}, {"arm", arm}, {"round", round}, {"step_ns", {100, 110, 120}},
          {"summary", {{"median_ns", 110.0}, {"p99_ns", 119.8}, {"throughput_steps_s", 1e9 / 110.0}}}, {"flags", json::array()}};
}

json with(json t, const std::string& key, json value) {
  t[key] = std::move(value);
  return t;
}

// A directory of this process's own (other build trees run these tests in the same /tmp).
std::string fresh(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/" + name + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

// The InputError message of reading `dir`'s trials, or "" when they read.
std::string trials_error(const std::string& dir) {
  try {
    std::vector<std::string> w;
    RunDirectory::open(dir).read_trials(w);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string open_error(const std::string& dir) {
  try {
    RunDirectory::open(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RunDirectory, AppendReadTruncateRepair) {
  std::string dir = fresh("pb-rundir");
  RunDirectory rd = RunDirectory::create("", dir, "h", run_json());
  rd.append_trial(trial(0));
  rd.append_trial(trial(1));
  std::ofstream(dir + "/trials.jsonl", std::ios::app) << "{\"round\": 2, \"ste";
  RunDirectory again = RunDirectory::open(dir);
  std::vector<std::string> warnings;
  EXPECT_EQ(again.read_trials(warnings).size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("trials.jsonl:3: truncated"), std::string::npos);
  warnings.clear();
  again.read_trials(warnings, true);
  again.append_trial(trial(2));
  warnings.clear();
  auto trials = again.read_trials(warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[2]["round"], 2);
  EXPECT_THROW(RunDirectory::create("", dir, "h", {}), InputError);  // never overwrite a run
}

TEST(RunDirectory, AWholeLastLineWithoutItsNewlineIsKeptAndRepairedWithOne) {
  std::string dir = fresh("pb-rundir-nonewline");
  RunDirectory rd = RunDirectory::create("", dir, "h", run_json());
  rd.append_trial(trial(0));
  std::ofstream(dir + "/trials.jsonl", std::ios::app) << trial(1).dump();  // crashed before its newline
  std::vector<std::string> warnings;
  EXPECT_EQ(rd.read_trial_records(warnings).size(), 2u);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_EQ(rd.read_trial_records(warnings, /*repair=*/true).size(), 2u);
  rd.append_trial(trial(2));
  auto records = rd.read_trial_records(warnings);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].round, 1);
  EXPECT_EQ(records[2].round, 2);
  EXPECT_TRUE(warnings.empty());
}

TEST(RunDirectory, ANumberOutOfRangeNamesItsLine) {
  std::string text = "{\n  \"a\": 1,\n  \"b\": 1e400\n}";
  try {
    json parsed = json::parse(text);
    FAIL() << "1e400 parsed: " << parsed.dump();
  } catch (const json::exception& e) {
    JsonSyntaxProblem p = json_syntax_problem(text, e);
    EXPECT_EQ(p.line, 3u);
    EXPECT_EQ(p.why, "number 1e400 is out of range of a double");
  }
}

TEST(RunDirectory, DamagedFilesAreInputErrors) {
  std::string dir = fresh("pb-rundir-bad");
  EXPECT_THROW(RunDirectory::open(dir), InputError);
  RunDirectory::create("", dir, "h", run_json());
  std::ofstream(dir + "/trials.jsonl") << trial(0).dump() << "\nnot json\n" << trial(1).dump() << "\n";
  EXPECT_NE(trials_error(dir).find("trials.jsonl:2: not a JSON trial line"), std::string::npos);
  std::ofstream(dir + "/run.json") << "{\"schema_version\": 99}";
  EXPECT_THROW(RunDirectory::open(dir), InputError);
}

TEST(RunDirectory, TrialsFileMissingOrADirectoryIsAnInputError) {
  std::string dir = fresh("pb-rundir-notrials");
  RunDirectory::create("", dir, "h", run_json());
  std::filesystem::remove(dir + "/trials.jsonl");
  EXPECT_NE(trials_error(dir).find("trials.jsonl: missing"), std::string::npos) << trials_error(dir);
  std::filesystem::create_directory(dir + "/trials.jsonl");
  EXPECT_NE(trials_error(dir).find("trials.jsonl: a directory, not a file"), std::string::npos) << trials_error(dir);
}

TEST(RunDirectory, EachTrialLineIsChecked) {
  struct Case {
    json line;
    std::string message;
  };
  json no_round = trial(1);
  no_round.erase("round");
  std::vector<Case> cases = {
      {json::array({1, 2}), "trials.jsonl:2: expected a trial record (one JSON object per line), got a list"},
      {with(trial(1), "step_ns", "abc"), "trials.jsonl:2: step_ns: expected a list, got \"abc\""},
      {with(trial(1), "step_ns", {1, nullptr}), "trials.jsonl:2: step_ns[1]: expected a number of ns > 0 and <= 1e+15, got null"},
      {with(trial(1), "step_ns", {1, 0}), "trials.jsonl:2: step_ns[1]: expected a number of ns > 0 and <= 1e+15, got 0"},
      {with(trial(1), "step_ns", {1.5e300, 1}), "trials.jsonl:2: step_ns[0]: expected a number of ns > 0 and <= 1e+15"},
      {with(trial(1), "step_ns", json::array()), "trials.jsonl:2: step_ns: empty"},
      {no_round, "trials.jsonl:2: round: missing"},
      {with(trial(1), "round", "x"), "trials.jsonl:2: round: expected a whole number in [0, 3], got \"x\""},
      {with(trial(1), "round", 4), "trials.jsonl:2: round: expected a whole number in [0, 3], got 4"},
      {with(trial(1), "arm", 5), "trials.jsonl:2: arm: expected a string, got 5"},
      {with(trial(1), "arm", "unpinned"), "trials.jsonl:2: arm: \"unpinned\" is not an arm of class c (local, remote)"},
      {with(trial(1), "class", "d"), "trials.jsonl:2: class: \"d\" is not a class of this run (c)"},
      {with(trial(1), "summary", nullptr), "trials.jsonl:2: summary: expected a map, got null"},
      {with(trial(1), "summary", {{"p99_ns", 1.0}}), "trials.jsonl:2: summary.median_ns: missing"},
      {with(trial(1), "summary", {{"median_ns", 0}}), "trials.jsonl:2: summary.median_ns: expected a number > 0, got 0"},
      // Step times 30% slower under the summary of the original ones: the summary is checked against them.
      {with(trial(1), "step_ns", {130, 143, 156}),
       "trials.jsonl:2: summary.median_ns: 110 disagrees with step_ns, which give 143 (the line was edited)"},
      {with(trial(1), "summary", {{"median_ns", 110.0}, {"p99_ns", 119.8}, {"throughput_steps_s", 7e6}}),
       "trials.jsonl:2: summary.throughput_steps_s: 7e+06 disagrees with step_ns, which give 9.09091e+06"},
      {with(trial(1), "flags", "x"), "trials.jsonl:2: flags: expected a list, got \"x\""},
      {trial(0), "trials.jsonl:2: repeats the trial of class \"c\", round 0, arm \"local\" of line 1"},
      // Issue 26: a placement record that contradicts the trial's flags (roles are read from the flags).
      {with(trial(1), "placement", {{"status", "verified"}, {"degenerate", true}}),
       "trials.jsonl:2: placement.degenerate: is true, but flags has no \"degenerate\""},
      {with(with(trial(1), "flags", {"degenerate"}), "placement", {{"status", "verified"}, {"degenerate", false}}),
       "trials.jsonl:2: placement.degenerate: is false, but flags has \"degenerate\""},
      {with(trial(1), "placement", {{"status", "failed"}, {"degenerate", false}}),
       "trials.jsonl:2: placement.status: is \"failed\", but flags has no \"placement_failed\""},
  };
  std::string dir = fresh("pb-rundir-lines");
  RunDirectory::create("", dir, "h", run_json());
  for (const auto& c : cases) {
    std::ofstream(dir + "/trials.jsonl") << trial(0).dump() << "\n" << c.line.dump() << "\n";
    std::string message = trials_error(dir);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.line.dump() << " -> " << message;
    EXPECT_NE(message.find("; the line is damaged"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  }
}

TEST(RunDirectory, TheConfigCopyIsChecked) {
  struct Case {
    const char* pointer;
    json value;
    std::string message;
  };
  std::vector<Case> cases = {
      {"/config/confidence", 5, "config.confidence: expected a number in [0.5, 0.9999], got 5"},
      {"/config/confidence", "x", "config.confidence: expected a number in [0.5, 0.9999], got \"x\""},
      {"/config/rounds", {{"min", 9}, {"max", 2}}, "config.rounds.max: expected a whole number in [9, 100000], got 2"},
      {"/config/classes", "x", "config.classes: expected a list, got \"x\""},
      {"/config/classes", json::array(), "config.classes: empty"},
      {"/config/classes/0/margin_pct", "x", "config.classes[0].margin_pct: expected a number in [0, 100], got \"x\""},
      {"/config/classes/0/arms/baseline", "bogus", "config.classes[0].arms.baseline: expected one of local, remote"},
      {"/config/classes/0/statistic", "mean", "config.classes[0].statistic: expected one of median, p99, throughput"},
      {"/config/classes/0/workload/bytes", "64K", "config.classes[0].workload.bytes: expected a whole number >= 1, got \"64K\""},
      {"/config/seed", -1, "config.seed: expected a whole number >= 0, got -1"},
      {"/config/steps", 0, "config.steps: expected a whole number in [3, 10000000], got 0"},
  };
  std::string dir = fresh("pb-rundir-config");
  RunDirectory::create("", dir, "h", run_json());
  for (const auto& c : cases) {
    json run = run_json();
    run[json::json_pointer(c.pointer)] = c.value;
    std::ofstream(dir + "/run.json") << run.dump(2);
    std::string message = open_error(dir);
    EXPECT_NE(message.find("run.json: " + c.message), std::string::npos) << c.pointer << " -> " << message;
    EXPECT_NE(message.find("the config copy is damaged"), std::string::npos) << message;
  }
  json run = run_json();
  run.erase("config");
  std::ofstream(dir + "/run.json") << run.dump();
  EXPECT_NE(open_error(dir).find("run.json: config: missing"), std::string::npos) << open_error(dir);
  std::ofstream(dir + "/run.json") << run_json().dump(2).substr(0, 120);
  EXPECT_NE(open_error(dir).find("run.json:7: not valid JSON (cut short"), std::string::npos) << open_error(dir);
  std::ofstream(dir + "/run.json") << run_json().dump(2);
  EXPECT_EQ(open_error(dir), "");
}

// A summary of class "c" with its baseline arm, as analyze_run makes it.
RunSummary typed_summary() {
  ClassAnalysis cls;
  cls.name = "c";
  cls.baseline = "local";
  cls.statistic = "median";
  cls.statistic_unit = "ns";
  cls.looks = {2, 4};
  cls.look_confidence = 0.98;
  cls.boundary_z = 2.4;
  cls.stop_reason = "continue";
  cls.stop_words = "undecided after 1 rounds";
  ArmAnalysis base;
  base.arm = "local";
  base.role = base.verdict = "baseline";
  base.n_rounds = 1;
  base.measured = true;
  base.median_ns = 110;
  cls.arms.push_back(base);
  return {{cls}, true, 2};
}

// A run directory whose summary.json a test rewrites, and the error of reading it back ("" when it reads).
struct SummaryScratch {
  std::string dir;
  RunDirectory rd;
  explicit SummaryScratch(const std::string& name) : dir(fresh(name)), rd(RunDirectory::create("", dir, "h", run_json())) {}
  void write(const json& j) const { std::ofstream(dir + "/summary.json") << j.dump(2); }
  std::string error() const {
    try {
      rd.read_summary();
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(RunDirectory, SummaryReadsBackWhatWasWrittenAndChecksItsVersion) {
  SummaryScratch s("pb-rundir-summary");
  const json good = summary_to_json(typed_summary());
  s.rd.write_summary(typed_summary());
  EXPECT_EQ(s.error(), "");
  EXPECT_EQ(summary_to_json(s.rd.read_summary()), good);  // the reader gives back what the writer wrote
  json old = good;
  old["schema_version"] = 1;
  s.write(old);
  EXPECT_NE(s.error().find("summary.json: schema_version 1 is not the 2 this placebench reads"), std::string::npos) << s.error();
  std::ofstream(s.dir + "/summary.json") << "";
  EXPECT_NE(s.error().find("summary.json:1: not valid JSON (the file is empty); rebuild it from trials.jsonl with "
                           "`placebench compare " + s.dir + " --write-summary`"),
            std::string::npos)
      << s.error();
  std::ofstream(s.dir + "/summary.json") << good.dump(2).substr(0, 60);
  EXPECT_NE(s.error().find("not valid JSON (cut short"), std::string::npos) << s.error();
}

TEST(RunDirectory, SummaryFieldsAreChecked) {
  SummaryScratch s("pb-rundir-summary-fields");
  const json good = summary_to_json(typed_summary());
  json bad = good;
  bad["classes"][0]["arms"][0]["median"] = "x";
  s.write(bad);
  EXPECT_NE(s.error().find("summary.json: classes[0].arms[0].median: expected a number >= 0, got \"x\"; the file is damaged"),
            std::string::npos)
      << s.error();
  bad = good;
  bad["classes"][0]["arms"][0]["p99"] = -1.0;  // a step time is never negative
  s.write(bad);
  EXPECT_NE(s.error().find("classes[0].arms[0].p99: expected a number >= 0, got -1.0"), std::string::npos) << s.error();
  bad = good;
  bad["classes"][0]["arms"][0]["within_run_median_ci"] = {5.0, 4.0};
  s.write(bad);
  EXPECT_NE(s.error().find("within_run_median_ci: expected [low, high] with 0 <= low <= high"), std::string::npos)
      << s.error();
  bad = good;
  bad["complete"] = "yes";
  s.write(bad);
  EXPECT_NE(s.error().find("summary.json: complete: expected true or false"), std::string::npos) << s.error();
  bad = good;
  bad["classes"][0]["arms"][0]["role"] = "control";  // a control arm never carries a verdict
  s.write(bad);
  EXPECT_NE(s.error().find("classes[0].arms[0].verdict: expected a verdict that fits role control"), std::string::npos)
      << s.error();
}

// Each line through the one reader: the fields every reader uses, typed, and the line as written.
TEST(RunDirectory, TrialLinesReadIntoRecords) {
  std::string dir = fresh("pb-rundir-records");
  RunDirectory rd = RunDirectory::create("", dir, "h", run_json());
  json line = trial(0, "remote");
  line["position"] = 1;
  line["flags"] = {"degenerate"};
  line["placement"] = {{"status", "verified"}, {"degenerate", true}, {"device_numa", 0}};
  line["summary"]["bytes_per_s"] = 4e9;
  line["summary"]["median_ci_ns"] = {100, 120};
  line["system"] = {{"n_samples", 3}};
  rd.append_trial(trial(0));
  rd.append_trial(line);
  std::vector<std::string> warnings;
  std::vector<TrialRecord> records = RunDirectory::open(dir).read_trial_records(warnings);
  ASSERT_EQ(records.size(), 2u);
  const TrialRecord& r = records[1];
  EXPECT_EQ(r.class_name, "c");
  EXPECT_EQ(r.arm, "remote");
  EXPECT_EQ(r.round, 0);
  EXPECT_EQ(r.position, 1);
  EXPECT_FALSE(records[0].position);
  EXPECT_EQ(r.step_ns, (std::vector<double>{100, 110, 120}));
  EXPECT_EQ(r.placement_status, "verified");
  EXPECT_TRUE(r.degenerate);
  EXPECT_TRUE(r.has_flag("degenerate"));
  EXPECT_FALSE(r.has_flag("placement_"));
  EXPECT_DOUBLE_EQ(trial_statistic(r, Statistic::kMedian), 110.0);
  EXPECT_DOUBLE_EQ(r.summary.at("bytes_per_s"), 4e9);
  EXPECT_EQ(r.summary.count("median_ci_ns"), 0u);  // numbers only
  EXPECT_EQ(r.line, line);                         // and the whole line, for what only some printers read
  EXPECT_EQ(RunDirectory::open(dir).read_trials(warnings).at(1), line);

  std::ofstream(dir + "/trials.jsonl") << trial(0).dump() << "\n" << with(trial(1), "placement", {{"status", 5}}).dump() << "\n";
  EXPECT_NE(trials_error(dir).find("trials.jsonl:2: placement.status: expected a string, got 5"), std::string::npos)
      << trials_error(dir);
  std::ofstream(dir + "/trials.jsonl") << with(trial(1), "position", -1).dump() << "\n";
  EXPECT_NE(trials_error(dir).find("trials.jsonl:1: position: expected a whole number"), std::string::npos)
      << trials_error(dir);
  try {
    trial_record_from_json(with(trial(1), "round", 9), RunDirectory::open(dir).config(), "t");
    ADD_FAILURE() << "round 9 of a 4-round run was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t: round: expected a whole number in [0, 3], got 9"), std::string::npos) << e.what();
  }
}

TEST(RunDirectory, RunsStartedInTheSameSecondGetTheirOwnDirectories) {
  std::string base = fresh("pb-rundir-same-second");
  // Three runs back to back (well within a second, or at worst across one boundary): distinct directories,
  // each with its own run.json and an empty trials.jsonl.
  std::set<std::string> paths;
  for (int i = 0; i < 3; ++i) paths.insert(RunDirectory::create(base, "", "h", run_json()).path());
  EXPECT_EQ(paths.size(), 3u);
  for (const auto& p : paths) {
    EXPECT_TRUE(std::filesystem::exists(p + "/run.json")) << p;
    EXPECT_EQ(std::filesystem::file_size(p + "/trials.jsonl"), 0u) << p;
  }
}
