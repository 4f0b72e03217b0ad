// `placebench fleet` (and the single-run readers) on damaged and mismatched runs (issues 27 and 28): a
// trial line whose summary is 0 or disagrees with its step times, a summary.json left over edited trials,
// a start_time or topology value that is not one, most runs without a topology, two unreadable runs of one
// host in the Prometheus output, runs of different configs. Each damaged node is a suspect with its
// reason, never the end of the report; each single-run command refuses the run with exit 2 in one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "fleet_fixtures.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fresh_fleet(const std::string& name, std::vector<SyntheticNode> nodes = {}) {
  if (nodes.empty())
    for (int i = 1; i <= 5; ++i) nodes.push_back({"node-" + std::to_string(i)});
  return write_fleet_dir(::testing::TempDir() + "/pb-fleet-damage-" + name + "-" + std::to_string(::getpid()), nodes);
}

CommandResult pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args, 120, {"SOURCE_DATE_EPOCH=1764547200"});
}

// Rewrites every line of DIR/trials.jsonl through `edit` (its index and the parsed line).
void edit_trials(const std::string& dir, const std::function<void(std::size_t, json&)>& edit) {
  std::istringstream in(read_text_file(dir + "/trials.jsonl"));
  std::string out;
  std::size_t i = 0;
  for (std::string line; std::getline(in, line); ++i) {
    json t = json::parse(line);
    edit(i, t);
    out += t.dump() + "\n";
  }
  write_text_file(dir + "/trials.jsonl", out);
}

void edit_run_json(const std::string& dir, const std::function<void(json&)>& edit) {
  json run = json::parse(read_text_file(dir + "/run.json"));
  edit(run);
  write_text_file(dir + "/run.json", run.dump(2));
}

json fleet_json(const std::string& dir, int expected_exit, const std::vector<std::string>& more = {}) {
  std::string out = dir + "/fleet.json";
  fs::remove(out);  // a second report over the same tree: the output rule keeps an earlier one without --force
  std::vector<std::string> args = {"fleet", dir, "--json", out};
  args.insert(args.end(), more.begin(), more.end());
  CommandResult r = pb(args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
  return fs::exists(out) ? json::parse(read_text_file(out)) : json();
}

// The suspects' hosts and their reasons joined.
std::map<std::string, std::string> suspects(const json& j) {
  std::map<std::string, std::string> out;
  for (const auto& s : j.at("suspects")) {
    std::string reasons;
    for (const auto& r : s.at("reasons")) reasons += r.get<std::string>() + " | ";
    out[s.at("host")] = reasons;
  }
  return out;
}

void expect_one_line_exit_two(const CommandResult& r, const std::string& part, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_NE(r.err.find(part), std::string::npos) << what << ": " << r.err;
  EXPECT_EQ(r.err.find("compare_paired"), std::string::npos) << what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
}

}  // namespace

TEST(FleetDamage, ATrialSummaryOfZeroIsRefusedByEveryReaderAndIsOneSuspectInTheFleet) {
  // Before: fleet, compare, check and check --init-reference exit 1 with "compare_paired: baseline[0] is 0".
  std::string dir = fresh_fleet("zero");
  std::string run = dir + "/node-2/run-10";
  edit_trials(run, [](std::size_t i, json& t) {
    if (i == 0) t["summary"]["median_ns"] = 0;
  });
  const std::string part = run + "/trials.jsonl:1: summary.median_ns: expected a number > 0, got 0";
  expect_one_line_exit_two(pb({"compare", run}), part, "compare");
  expect_one_line_exit_two(pb({"check", run, "--reference", std::string(PLACEBENCH_SOURCE_DIR) + "/configs/references/examples/dev-vm-2vcpu-1numa.yaml"}),
                           part, "check");
  expect_one_line_exit_two(pb({"check", "--init-reference", run, "--out", dir + "/ref.yaml"}), part, "init-reference");
  EXPECT_FALSE(fs::exists(dir + "/ref.yaml"));
  json j = fleet_json(dir, 1);
  EXPECT_EQ(j.at("nodes").size(), 4u) << j.dump(2);
  auto s = suspects(j);
  ASSERT_EQ(s.size(), 1u) << j.dump(2);
  EXPECT_NE(s["node-2"].find("results unreadable, skipped: " + part), std::string::npos) << s["node-2"];
}

TEST(FleetDamage, StepTimesSlowedUnderUnchangedSummariesDoNotPass) {
  // Before: node-3's step times 30% slower, its trial summaries (and summary.json) left as they were: pass.
  std::string dir = fresh_fleet("slowed-steps");
  edit_trials(dir + "/node-3/run-10", [](std::size_t, json& t) {
    for (auto& s : t["step_ns"]) s = static_cast<std::int64_t>(s.get<double>() * 1.3);
  });
  auto s = suspects(fleet_json(dir, 1));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s["node-3"].find("summary.median_ns: "), std::string::npos) << s["node-3"];
  EXPECT_NE(s["node-3"].find(" disagrees with step_ns, which give "), std::string::npos) << s["node-3"];
}

TEST(FleetDamage, ASummaryJsonLeftOverEditedTrialsIsRefused) {
  // The trial lines rewritten whole (step times and their summaries 30% slower), summary.json kept.
  std::string dir = fresh_fleet("stale-summary");
  edit_trials(dir + "/node-4/run-10", [](std::size_t, json& t) {
    std::vector<std::int64_t> steps;
    for (auto& s : t["step_ns"]) steps.push_back(static_cast<std::int64_t>(s.get<double>() * 1.3));
    std::vector<std::string> flags;
    t["step_ns"] = steps;
    t["summary"] = placebench::harness::summarize_steps(steps, flags);
  });
  auto s = suspects(fleet_json(dir, 1));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s["node-4"].find("summary.json: class staging-gpu0 arm local: median "), std::string::npos) << s["node-4"];
  EXPECT_NE(s["node-4"].find("disagrees with trials.jsonl"), std::string::npos) << s["node-4"];
}

TEST(FleetDamage, AStartTimeThatIsNotRfc3339IsRefusedAndDoesNotSortNewest) {
  // Before: "9999-zz" sorted after every real time, so the damaged run was taken as the newest.
  std::string dir = fresh_fleet("start-time");
  SyntheticNode odd{"node-1"};
  odd.slowdown = 2;
  odd.start_time = "2026-12-01T11:00:00Z";
  write_synthetic_node(dir + "/node-1/run-11", odd);
  edit_run_json(dir + "/node-1/run-11", [](json& run) { run["start_time"] = "9999-zz"; });
  json j = fleet_json(dir, 0);
  EXPECT_EQ(j["nodes"][0]["dir"], dir + "/node-1/run-10");
  std::string warnings = j["warnings"].dump();
  EXPECT_NE(warnings.find("run-11/run.json: start_time: expected an RFC 3339 time (2026-12-01T10:00:00Z), got \\\"9999-zz\\\""),
            std::string::npos) << warnings;
  // An offset is a time like any other: 12:00+05:00 is 07:00Z, older than the 10:00Z run.
  edit_run_json(dir + "/node-1/run-11", [](json& run) { run["start_time"] = "2026-12-01T12:00:00+05:00"; });
  j = fleet_json(dir, 0);
  EXPECT_EQ(j["nodes"][0]["dir"], dir + "/node-1/run-10");
}

TEST(FleetDamage, TopologyValuesOutsideTheirRangesAreRefusedWithTheField) {
  std::string dir = fresh_fleet("topology-values");
  edit_run_json(dir + "/node-2/run-10", [](json& run) { run["topology"]["cores"] = 1e308; });
  edit_run_json(dir + "/node-5/run-10", [](json& run) { run["topology"]["gpus"][1]["numa_node"] = -5; });
  auto s = suspects(fleet_json(dir, 1));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NE(s["node-2"].find("node-2/run-10/run.json: topology: cores: expected an integer from 0 to 4294967295, found 1e+308"),
            std::string::npos) << s["node-2"];
  EXPECT_NE(s["node-5"].find("run.json: topology: gpus[1].numa_node: expected an integer from 0 to 1023, found -5"),
            std::string::npos) << s["node-5"];
}

TEST(FleetDamage, MostRunsWithoutATopologyDoNotFlagTheOneThatHasOne) {
  // Before: "?" (no topology) was the majority value of every field and node-1, the one with a topology, a suspect.
  std::string dir = fresh_fleet("no-topology");
  for (int i = 2; i <= 5; ++i) edit_run_json(dir + "/node-" + std::to_string(i) + "/run-10", [](json& run) { run.erase("topology"); });
  json j = fleet_json(dir, 0);
  EXPECT_TRUE(j["suspects"].empty()) << j["suspects"].dump(2);
  EXPECT_NE(j["nodes"][1]["notes"].dump().find("run.json has no topology"), std::string::npos);
}

TEST(FleetDamage, PrometheusNeverWritesASeriesTwice) {
  // Before: two unreadable runs of node-2 gave placebench_fleet_node_suspect{host="node-2"} twice.
  std::string dir = fresh_fleet("prom-twice");
  SyntheticNode second{"node-2"};
  second.start_time = "2026-12-01T11:00:00Z";
  write_synthetic_node(dir + "/node-2/run-11", second);
  for (const char* run : {"/node-2/run-10", "/node-2/run-11"}) write_text_file(dir + run + "/summary.json", "{\"classes\": 7}");
  std::string prom = dir + "/fleet.prom";
  CommandResult r = pb({"fleet", dir, "--prometheus", prom});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  std::istringstream in(read_text_file(prom));
  std::set<std::string> series;
  int suspect_lines = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string name = line.substr(0, line.rfind(' '));
    EXPECT_TRUE(series.insert(name).second) << "written twice: " << name;
    suspect_lines += name == "placebench_fleet_node_suspect{host=\"node-2\"}";
  }
  EXPECT_EQ(suspect_lines, 1);
  auto s = suspects(fleet_json(dir, 1));
  EXPECT_NE(s["node-2"].find("run-10"), std::string::npos) << s["node-2"];  // both runs' reasons are kept
  EXPECT_NE(s["node-2"].find("run-11"), std::string::npos) << s["node-2"];
}

TEST(FleetDamage, RunsOfDifferentConfigsAreRefusedUnlessTheMetricsAreNamed) {
  // Before: compared row by row, a "+7074% suspect" between two experiments.
  std::vector<SyntheticNode> nodes;
  for (int i = 1; i <= 4; ++i) nodes.push_back({"node-" + std::to_string(i)});
  nodes[3].steps = 30;
  std::string dir = fresh_fleet("configs", nodes);
  CommandResult r = pb({"fleet", dir});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("(node-1) and " + dir + "/node-4/run-10 (node-4) measured different things: steps: 40 against 30; "),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--metrics CLASS[/ARM]"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  json j = fleet_json(dir, 0, {"--metrics", "staging-gpu0/local,staging-gpu1"});
  ASSERT_EQ(j["metrics"].size(), 3u) << j["metrics"].dump();
  EXPECT_EQ(j["metrics"][0]["class"], "staging-gpu0");
  EXPECT_EQ(j["metrics"][0]["arm"], "local");
  r = pb({"fleet", dir, "--metrics", "staging-gpu7"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--metrics staging-gpu7: no node has this class (or arm)"), std::string::npos) << r.err;
  r = pb({"fleet", dir, "--metrics", "staging-gpu0,"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--metrics staging-gpu0,: an empty class or arm"), std::string::npos) << r.err;
}
