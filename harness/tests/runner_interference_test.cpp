// Interference conditions (issue 32): the `interference` list of a class (parsing, errors at their line,
// run.json's copy), the round's cells (arm x condition, interleaved), the analysis of hand-made trials
// under conditions (each condition's arms, the load comparison, the dose-response slope against the
// aggressor's measured dose), summary.json's round trip and check, and the A/A false-verdict rate of the
// quiet/loaded interleaving in simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/schedule.h"
#include "placebench/harness/runner/simulate.h"

namespace placebench::harness {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_experiment_config(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string with_interference(const std::string& list) {
  return "classes:\n  - name: a\n    workload: {type: staging}\n    interference: " + list + "\n";
}

TEST(InterferenceConfig, OneConditionPerDoseNamedByHogNodeAndThreads) {
  ExperimentConfig c = parse_experiment_config(
      with_interference("[quiet, {hog: membw, node: device, dose: [0, 2]}, {hog: cpu, node: other, dose: 1}]"), "c.yaml");
  std::vector<std::string> names;
  for (const Condition& k : c.classes[0].conditions) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"quiet", "membw-device-0", "membw-device-2", "cpu-other-1"}));
  EXPECT_EQ(c.classes[0].cells(), 2u * 4u);  // local, remote x 4 conditions
  EXPECT_EQ(c.classes[0].conditions[2].threads, 2);
  EXPECT_EQ(c.classes[0].conditions[3].hog, Condition::Hog::kCpu);
  // run.json's copy holds them and reads back the same; a class without conditions writes no key.
  const nlohmann::json copy = config_to_json(c);
  EXPECT_EQ(copy["classes"][0]["interference"].size(), 4u);
  EXPECT_EQ(config_to_json(config_from_json(copy)), copy);
  const char* plain = "classes:\n  - name: a\n    workload: {type: staging}\n";
  EXPECT_FALSE(config_to_json(parse_experiment_config(plain, "d.yaml"))["classes"][0].contains("interference"));
}

TEST(InterferenceConfig, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of(with_interference("busy")),
            "bad.yaml:4: classes[0].interference: must be a list of conditions, e.g. [quiet, {hog: membw, node: device, "
            "dose: [1, 2]}]");
  EXPECT_EQ(error_of(with_interference("[]")),
            "bad.yaml:4: classes[0].interference: empty: list the conditions (quiet and the loaded ones), or leave the "
            "key out");
  std::string e = error_of(with_interference("[noisy]"));
  EXPECT_EQ(e.find("bad.yaml:4: classes[0].interference[0]: 'noisy' is not a condition"), 0u) << e;
  e = error_of(with_interference("[{hog: disk, dose: 1}]"));
  EXPECT_EQ(e.find("bad.yaml:4: classes[0].interference[0].hog: 'disk' is not accepted; accepted values: membw, cpu"), 0u) << e;
  e = error_of(with_interference("[{hog: membw, node: far, dose: 1}]"));
  EXPECT_NE(e.find("classes[0].interference[0].node: 'far' is not accepted; accepted values: device, other"),
            std::string::npos) << e;
  e = error_of(with_interference("[{hog: membw}]"));
  EXPECT_NE(e.find("classes[0].interference[0].dose: missing: the hog's threads"), std::string::npos) << e;
  e = error_of(with_interference("[{hog: cpu, dose: [1, -1]}]"));
  EXPECT_NE(e.find("classes[0].interference[0].dose[1]"), std::string::npos) << e;
  e = error_of(with_interference("[{hog: cpu, dose: 1, size: 8M}]"));
  EXPECT_NE(e.find("classes[0].interference[0].size: is the membw buffer; a cpu hog has none"), std::string::npos) << e;
  e = error_of(with_interference("[{hog: membw, dose: 1, threads: 2}]"));
  EXPECT_NE(e.find("classes[0].interference[0].threads: unknown key; accepted keys: hog, node, dose, size"),
            std::string::npos) << e;
  e = error_of(with_interference("[quiet, {hog: membw, dose: [1, 1]}]"));
  EXPECT_NE(e.find("classes[0].interference[1]: lists condition membw-device-1 twice; keep one"), std::string::npos) << e;
  // Every message is one line, at the line of the list (flow style: one line).
  EXPECT_EQ(e.find('\n'), std::string::npos);
  e = error_of("classes:\n  - name: a\n    workload: {type: staging}\n    interference:\n      - quiet\n      - {hog: gpu}\n");
  EXPECT_EQ(e.find("bad.yaml:6: classes[0].interference[1].hog"), 0u) << e;
}

TEST(InterferenceConfig, ACopyWithADamagedConditionIsRefused) {
  ExperimentConfig c = parse_experiment_config(with_interference("[quiet, {hog: membw, dose: 2}]"), "c.yaml");
  nlohmann::json copy = config_to_json(c);
  copy["classes"][0]["interference"][1]["name"] = "membw-device-3";
  try {
    config_from_json(copy, "run.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("config.classes[0].interference[1].name: is not membw-device-2"), std::string::npos)
        << e.what();
  }
}

TEST(InterferenceSchedule, EveryCellOnceARoundInterleavedAndSeeded) {
  const std::vector<Arm> arms = {Arm::kLocal, Arm::kRemote};
  // Without conditions (or with one) the schedule is the arms' own, unchanged.
  for (int r = 0; r < 8; ++r) {
    std::vector<Cell> cells = round_cells(arms, 1, Order::kRandom, 42, 0, r);
    std::vector<Arm> order = round_order(arms, Order::kRandom, 42, 0, r);
    ASSERT_EQ(cells.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(cells[i].arm, order[i]);
  }
  std::set<std::vector<std::pair<int, std::size_t>>> orders;
  bool quiet_not_first_block = false;
  for (int r = 0; r < 20; ++r) {
    std::vector<Cell> cells = round_cells(arms, 3, Order::kRandom, 42, 1, r);
    ASSERT_EQ(cells.size(), 6u);
    std::set<std::pair<int, std::size_t>> seen;
    std::vector<std::pair<int, std::size_t>> order;
    for (const Cell& c : cells) {
      seen.insert({static_cast<int>(c.arm), c.condition});
      order.push_back({static_cast<int>(c.arm), c.condition});
    }
    EXPECT_EQ(seen.size(), 6u);  // every (arm, condition) once
    orders.insert(order);
    // Interleaved: a loaded cell before a quiet one in some rounds (conditions are not run in blocks).
    for (std::size_t i = 0; i + 1 < cells.size(); ++i)
      quiet_not_first_block = quiet_not_first_block || (cells[i].condition != 0 && cells[i + 1].condition == 0);
    // The same seed gives the same order on every rank and resume.
    std::vector<Cell> again = round_cells(arms, 3, Order::kRandom, 42, 1, r);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(again[i].condition, cells[i].condition);
  }
  EXPECT_GT(orders.size(), 10u);
  EXPECT_TRUE(quiet_not_first_block);
  std::vector<Cell> fixed = round_cells(arms, 2, Order::kFixed, 1, 0, 0), abba = round_cells(arms, 2, Order::kAbba, 1, 0, 1);
  EXPECT_EQ(fixed.front().arm, Arm::kLocal);
  EXPECT_EQ(fixed.front().condition, 0u);
  EXPECT_EQ(abba.front().arm, Arm::kRemote);
  EXPECT_EQ(abba.front().condition, 1u);
}

// ---- analysis ----

ExperimentConfig loaded_config() {
  ExperimentConfig c = parse_experiment_config(
      "experiment: {rounds: {min: 10, max: 20, looks: 2}}\n"
      "classes:\n  - name: c\n    workload: {type: staging}\n    margin_pct: 2\n"
      "    interference: [quiet, {hog: membw, node: device, dose: [1, 2, 4]}]\n",
      "c.yaml");
  return c;
}

TrialRecord trial(const std::string& arm, int round, const std::string& condition, double value, std::optional<double> gbps) {
  TrialRecord t;
  t.class_name = "c";
  t.arm = arm;
  t.round = round;
  t.condition = condition;
  t.aggressor_gbps = gbps;
  t.aggressor_cores = gbps ? std::optional<double>(*gbps / 5) : std::nullopt;
  t.step_ns = {value};
  t.summary = {{"median_ns", value}, {"p99_ns", value}, {"throughput_steps_s", 1e9 / value}};
  return t;
}

// local slows by 2% per GB/s of the hog on its node, remote (already 10% slower) by 0.5%; the hog's measured
// bandwidth varies a little around 4 GB/s per thread; small deterministic noise.
std::vector<TrialRecord> loaded_trials(int rounds) {
  std::vector<TrialRecord> t;
  for (int r = 0; r < rounds; ++r)
    for (int threads : {0, 1, 2, 4}) {
      const std::string cond = threads ? "membw-device-" + std::to_string(threads) : "quiet";
      const double gbps = threads * 4.0 * (1 + 0.05 * ((r * 3 + threads) % 3 - 1));
      const double noise = 1 + 0.002 * ((r * 7 + threads) % 5 - 2);
      t.push_back(trial("local", r, cond, 1000 * (1 + 0.02 * gbps) * noise, threads ? std::optional(gbps) : std::nullopt));
      t.push_back(trial("remote", r, cond, 1100 * (1 + 0.005 * gbps) * noise, threads ? std::optional(gbps) : std::nullopt));
    }
  return t;
}

const ArmAnalysis& arm_of(const ClassAnalysis& c, const std::string& name) {
  for (const auto& a : c.arms)
    if (a.arm == name) return a;
  throw std::runtime_error("no arm " + name);
}

TEST(InterferenceAnalysis, SlopesAgainstTheMeasuredDoseWithCisOverRounds) {
  const std::vector<ClassAnalysis> out = analyze_run(loaded_config(), loaded_trials(20));
  ASSERT_EQ(out.size(), 1u);
  const ClassAnalysis& c = out[0];
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.condition, "quiet");
  ASSERT_EQ(c.conditions.size(), 3u);
  ASSERT_EQ(c.dose_response.size(), 2u);  // local and remote, one series (membw on the device's node)
  for (const DoseResponse& d : c.dose_response) {
    // slope / intercept in percent per GB/s: 2 for local (1000 x 0.02 / 1000), 0.5 for remote.
    const double expected = d.arm == "local" ? 2.0 : 0.5;
    EXPECT_NEAR(d.slope_pct, expected, 0.05) << d.arm;
    EXPECT_LE(d.ci_lo, d.slope_pct);
    EXPECT_GE(d.ci_hi, d.slope_pct);
    EXPECT_LT(d.ci_hi - d.ci_lo, 0.2) << d.arm;
    EXPECT_EQ(d.rounds, 20);
    EXPECT_EQ(d.unit, "%/(GB/s)");
    EXPECT_EQ(d.hog, "membw");
    EXPECT_EQ(d.node, "device");
    EXPECT_GE(d.max_dose, 16.0);
  }
  // Under the heaviest dose local (+~32%) loses to remote (+~8% on a 10% slower base): the arm comparison per condition.
  const ClassAnalysis& heavy = c.conditions[2];
  EXPECT_EQ(heavy.condition, "membw-device-4");
  EXPECT_EQ(heavy.hog_threads, 4);
  ASSERT_TRUE(heavy.aggressor_gbps.has_value());
  EXPECT_NEAR(*heavy.aggressor_gbps, 16.0, 1.0);
  EXPECT_EQ(arm_of(c, "remote").verdict, "slower");
  EXPECT_EQ(arm_of(heavy, "remote").verdict, "faster");
  // Each arm against itself unloaded.
  EXPECT_TRUE(arm_of(heavy, "local").load_compared);
  EXPECT_EQ(arm_of(heavy, "local").load_verdict, "slower");
  EXPECT_NEAR(arm_of(heavy, "local").load_ratio_pct, 32, 3);
  EXPECT_FALSE(arm_of(c, "local").load_compared);  // the quiet entry has no load comparison
}

// A starved hog (under half a core per thread) did not apply its dose: its trial's GB/s is no dose of the
// condition, so it is left out of the measured dose and the slopes, and the condition says how many starved.
TEST(InterferenceAnalysis, AStarvedHogsTrialIsNoDose) {
  std::vector<TrialRecord> trials = loaded_trials(20);
  for (TrialRecord& t : trials)
    if (t.condition == "membw-device-4" && t.round % 2 == 0) {
      t.aggressor_starved = true;
      t.aggressor_gbps = 0.1;  // what a starved hog records: far below its dose
      t.aggressor_cores = 0.1;
    }
  const ClassAnalysis c = analyze_run(loaded_config(), trials)[0];
  const ClassAnalysis& heavy = c.conditions[2];
  ASSERT_TRUE(heavy.aggressor_gbps.has_value());
  EXPECT_NEAR(*heavy.aggressor_gbps, 16.0, 1.0);  // the median of the dosed trials only
  const std::string warning = "membw-device-4: the hog starved in 20 of 40 trials";
  EXPECT_TRUE(std::any_of(heavy.warnings.begin(), heavy.warnings.end(),
                          [&](const std::string& w) { return w.rfind(warning, 0) == 0; }));
  for (const DoseResponse& d : c.dose_response) EXPECT_NEAR(d.slope_pct, d.arm == "local" ? 2.0 : 0.5, 0.05) << d.arm;
}

TEST(InterferenceAnalysis, SummaryRoundTripTableAndCheck) {
  RunSummary s{analyze_run(loaded_config(), loaded_trials(20)), true, 160};
  const nlohmann::json j = summary_to_json(s);
  EXPECT_EQ(j["classes"][0]["condition"], "quiet");
  EXPECT_EQ(j["classes"][0]["conditions"].size(), 3u);
  EXPECT_EQ(j["classes"][0]["dose_response"].size(), 2u);
  const RunSummary back = summary_from_json(j, "summary.json", "rebuild it");
  EXPECT_EQ(summary_to_json(back), j);
  nlohmann::json bad = j;
  bad["classes"][0]["conditions"][0]["arms"][0]["load_verdict"] = "worse";
  try {
    summary_from_json(bad, "summary.json", "rebuild it");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("classes[0].conditions[0].arms[0].load_verdict"), std::string::npos) << e.what();
  }
  const std::string table = render_analysis_table(back.classes, true);
  EXPECT_NE(table.find("Under membw-device-4 (membw hog on the device node, 4 threads"), std::string::npos) << table;
  EXPECT_NE(table.find("dose-response"), std::string::npos) << table;
  EXPECT_NE(table.find("c under membw-device-4:"), std::string::npos) << table;
  // The rows this adds fit 100 columns (headers, stop words and warnings are prose, as for every class).
  std::size_t start = 0;
  for (std::size_t end; (end = table.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = table.substr(start, end - start);
    if (line.rfind("    local", 0) == 0 || line.rfind("    remote", 0) == 0) {
      EXPECT_LE(line.size(), 100u) << line;
    }
  }
  // A run without conditions writes none of the new keys.
  ExperimentConfig plain = loaded_config();
  plain.classes[0].conditions.clear();
  std::vector<TrialRecord> quiet;
  for (TrialRecord t : loaded_trials(10))
    if (t.condition == "quiet") {
      t.condition.clear();
      quiet.push_back(t);
    }
  const nlohmann::json pj = summary_to_json(RunSummary{analyze_run(plain, quiet), true, quiet.size()});
  for (const char* key : {"condition", "conditions", "dose_response", "hog"}) EXPECT_FALSE(pj["classes"][0].contains(key)) << key;
  EXPECT_FALSE(pj["classes"][0]["arms"][0].contains("load_verdict"));
}

TEST(InterferenceAnalysis, TheClassStopsWhenEveryConditionDoes) {
  // Quiet ran every round; the loaded conditions only the first: quiet's comparisons stop, the class does not.
  std::vector<TrialRecord> t;
  for (const TrialRecord& r : loaded_trials(20))
    if (r.condition == "quiet" || r.round == 0) t.push_back(r);
  const ClassAnalysis c = analyze_run(loaded_config(), t).at(0);
  EXPECT_FALSE(c.stop);
  EXPECT_EQ(c.stop_reason, "continue");
  EXPECT_NE(c.stop_words.find("the loaded conditions' comparisons go on"), std::string::npos) << c.stop_words;
  EXPECT_FALSE(c.conditions.at(0).stop);
  const ClassAnalysis all = analyze_run(loaded_config(), loaded_trials(20)).at(0);
  EXPECT_TRUE(all.stop);  // the last look: every condition stops
}

// The target of issue 32: an aggressor at dose 0 (its machinery, no thread) against quiet, interleaved in
// the same rounds: the load comparisons' false verdicts stay at or below 5% of experiments.
TEST(InterferenceSimulation, AaFalseVerdictsAtMostFivePercent) {
  RunSimulation s;
  s.experiments = 400;
  s.seed = 32;
  s.config = parse_experiment_config(
      "experiment: {rounds: {min: 10, max: 30, looks: 3}}\n"
      "classes:\n  - name: c\n    workload: {type: staging}\n"
      "    interference: [quiet, {hog: membw, node: device, dose: 0}]\n",
      "aa.yaml");
  const SimulationResult r = simulate_runs(s);
  ASSERT_EQ(r.loads.size(), 2u);  // local and remote under membw-device-0
  EXPECT_LE(r.any_false_load, s.experiments / 20) << r.any_false_load;
  // The figure docs/performance.md quotes.
  std::printf("A/A (dose 0 vs quiet): %d of %d experiments with a false load verdict; local %d/%d, remote %d/%d "
              "faster/slower\n", r.any_false_load, s.experiments, r.loads.at("c/local@membw-device-0").faster,
              r.loads.at("c/local@membw-device-0").slower, r.loads.at("c/remote@membw-device-0").faster,
              r.loads.at("c/remote@membw-device-0").slower);
  // With a real load effect the same design sees it.
  s.effect_pct["c/local@membw-device-0"] = 15;
  const SimulationResult loaded = simulate_runs(s);
  EXPECT_GE(loaded.loads.at("c/local@membw-device-0").slower, s.experiments * 9 / 10);
  std::printf("a 15%% load effect on local: slower in %d of %d experiments\n",
              loaded.loads.at("c/local@membw-device-0").slower, s.experiments);
}

}  // namespace
}  // namespace placebench::harness
