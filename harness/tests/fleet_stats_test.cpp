// The fleet view's statistics (harness/src/fleet/fleet_stats.cpp) and judgement (fleet_analyze.cpp) on
// hand-made numbers: leave-one-out medians, the ratio rule with its CI, topology majorities, ranking.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "placebench/harness/fleet/fleet.h"
#include "placebench/harness/topology/inventory_read.h"

using namespace placebench::harness;
using namespace placebench::harness::fleet;

TEST(FleetStats, LeaveOneOutMedianIsTheMedianOfTheOthers) {
  // Odd number of others: their median.
  std::vector<double> v = {10, 30, 20, 100};
  auto loo = leave_one_out_medians(v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::vector<double> others = v;
    others.erase(others.begin() + static_cast<long>(i));
    ASSERT_TRUE(loo[i]);
    EXPECT_DOUBLE_EQ(*loo[i], median(others)) << i;
  }
  // The outlier does not pull its own reference: its peers' median is 20, not the 25 of all four.
  EXPECT_DOUBLE_EQ(*loo[3], 20);
  // Even number of others: the median of them nearest the node, so one outlier among three moves nothing.
  auto three = leave_one_out_medians({100, 140, 101});
  EXPECT_DOUBLE_EQ(*three[0], 101);  // not (140 + 101) / 2
  EXPECT_DOUBLE_EQ(*three[1], 101);
  EXPECT_DOUBLE_EQ(*three[2], 101);  // between its peers 100 and 140: it is a median of them
  // A node between a fast peer and the slow outlier is not judged against the fast one alone.
  auto between = leave_one_out_medians({942, 547, 775});
  EXPECT_DOUBLE_EQ(*between[2], 775);
  EXPECT_DOUBLE_EQ(*between[1], 775);  // the outlier against the nearer healthy peer
  auto fast = leave_one_out_medians({100, 100, 50});
  EXPECT_DOUBLE_EQ(*fast[0], 100);  // a fast outlier does not make its peers look slow
  EXPECT_DOUBLE_EQ(*fast[2], 100);
  EXPECT_DOUBLE_EQ(*leave_one_out_medians({1, 3, 2})[2], 2);  // at a tie, the pair's mean
  EXPECT_FALSE(leave_one_out_medians({5})[0]);
  auto two = leave_one_out_medians({1, 3});
  EXPECT_DOUBLE_EQ(*two[0], 3);
  EXPECT_DOUBLE_EQ(*two[1], 1);
}

// A node's statistic with its CI, against a fleet median of 100.
NodeMetric against_100(double value, double lo, double hi) {
  NodeMetric m;
  m.value = value;
  m.ci_lo = lo;
  m.ci_hi = hi;
  m.fleet_median = 100;
  return m;
}

TEST(FleetStats, SlowerNeedsTheEstimateAndTheWholeCiBeyondTheTolerance) {
  NodeMetric m = against_100(130, 125, 135);
  judge_against_fleet(m, false, 10);
  EXPECT_EQ(m.status, "slower");
  EXPECT_NEAR(*m.slowdown_pct, 30, 1e-9);
  EXPECT_NEAR(*m.slowdown_lo_pct, 25, 1e-9);
  m.ci_lo = 105;  // the CI reaches into the band: not proven
  judge_against_fleet(m, false, 10);
  EXPECT_EQ(m.status, "ok");
  m = against_100(80, 80, 80);
  judge_against_fleet(m, false, 10);
  EXPECT_EQ(m.status, "faster");
}

TEST(FleetStats, ThroughputIsJudgedAsStepTime) {
  NodeMetric m = against_100(80, 78, 82);  // steps/s: 20% fewer is 25% more time per step
  judge_against_fleet(m, true, 10);
  EXPECT_EQ(m.status, "slower");
  EXPECT_NEAR(*m.slowdown_pct, 25, 1e-9);
  EXPECT_LE(*m.slowdown_lo_pct, *m.slowdown_hi_pct);
  EXPECT_NEAR(*m.slowdown_lo_pct, 100.0 / 82 * 100 - 100, 1e-9);
  NodeMetric alone;
  judge_against_fleet(alone, true, 10);
  EXPECT_EQ(alone.status, "no peers");
  EXPECT_FALSE(alone.ratio);
}

TopologyPrint print(const std::string& gpu_numa) { return {{{"gpu_numa", gpu_numa}, {"cores", "32"}}}; }

TEST(FleetStats, TopologyMajorityNamesTheOddNodeAndATieNamesEveryNode) {
  auto fields = compare_topologies({{"a", print("0:0,1:1")}, {"b", print("0:0,1:0")}, {"c", print("0:0,1:1")}});
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].fleet_value, "0:0,1:1");
  EXPECT_EQ(fields[0].holders, 2);
  ASSERT_EQ(fields[0].mismatches.size(), 1u);
  EXPECT_EQ(fields[0].mismatches[0], (std::pair<std::string, std::string>{"b", "0:0,1:0"}));
  EXPECT_TRUE(fields[1].mismatches.empty());
  auto tie = compare_topologies({{"a", print("x")}, {"b", print("y")}});
  EXPECT_EQ(tie[0].fleet_value, "");
  EXPECT_EQ(tie[0].mismatches.size(), 2u);
}

TEST(FleetStats, TopologyPrintReadsTopoJson) {
  auto topo = nlohmann::json::parse(R"({"schema_version": 1, "cores": 8, "pus": 16,
    "numa_nodes": [{"os_index": 0, "cpus": "0-7"}, {"os_index": 1, "cpus": "8-15"}],
    "gpus": [{"index": 10, "numa_node": 1, "name": "G"}, {"index": 2, "numa_node": null, "name": "G"}],
    "nics": [{"name": "b", "numa_node": 1}, {"name": "a", "numa_node": 0}]})");
  TopologyPrint p = topology_print(placebench::harness::inventory_from_json(topo, "run.json: topology", "fix"));
  std::map<std::string, std::string> f(p.fields.begin(), p.fields.end());
  EXPECT_EQ(f["gpus"], "2x G");
  EXPECT_EQ(f["gpu_numa"], "2:-,10:1");
  EXPECT_EQ(f["nic_numa"], "a:0,b:1");
  EXPECT_EQ(f["numa_nodes"], "2");
  EXPECT_EQ(f["cores"], "8");
  EXPECT_EQ(topology_print(std::nullopt).fields.back(), (std::pair<std::string, std::string>{"pus", "?"}));
}

namespace {

NodeRun node(const std::string& host, double value, const std::string& gpu_numa = "0:0") {
  NodeRun n;
  n.host = host;
  n.complete = true;
  ClassAnalysis c;
  c.name = "k";
  c.statistic = "median";
  c.statistic_unit = "ns";
  ArmAnalysis a;
  a.arm = "local";
  a.has_statistic = true;
  a.statistic_value = value;
  a.statistic_ci_lo = value * 0.99;
  a.statistic_ci_hi = value * 1.01;
  a.n_rounds = 10;
  c.arms = {a};
  n.classes = {c};
  n.gpu_of_class = {"0"};
  n.topology = print(gpu_numa);
  return n;
}

}  // namespace


TEST(FleetAnalyze, SuspectsAreRankedWorstFirstWithTheirReasons) {
  FleetInput in;
  in.nodes = {node("a", 100), node("b", 150), node("c", 101), node("d", 130), node("e", 99, "0:1")};
  FleetReport r = analyze_fleet(in, FleetOptions{});
  ASSERT_EQ(r.suspects.size(), 3u);
  EXPECT_EQ(r.suspects[0].host, "b");
  EXPECT_EQ(r.suspects[1].host, "d");
  EXPECT_EQ(r.suspects[2].host, "e");
  EXPECT_EQ(r.suspects[2].severity_pct, 0);
  EXPECT_NE(r.suspects[2].reasons[0].find("topology: gpu_numa is '0:1'"), std::string::npos);
  EXPECT_TRUE(r.verdicts[1].suspect);
  EXPECT_FALSE(r.verdicts[0].suspect);
}

TEST(FleetAnalyze, AResultMostPeersHaveIsMissedAndOneNodeAloneIsAWarning) {
  FleetInput in;
  in.nodes = {node("a", 100), node("b", 100), node("c", 100)};
  in.nodes[2].classes[0].arms[0].has_statistic = false;
  FleetReport r = analyze_fleet(in, FleetOptions{});
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].host, "c");
  EXPECT_NE(r.suspects[0].reasons[0].find("k/local gpu 0: no result, which 2 of 3 nodes have"), std::string::npos);
  FleetInput one;
  one.nodes = {node("a", 100)};
  FleetReport lone = analyze_fleet(one, FleetOptions{});
  EXPECT_TRUE(lone.suspects.empty());
  ASSERT_EQ(lone.warnings.size(), 1u);
  EXPECT_EQ(lone.metrics[0].nodes[0].status, "no peers");
}

TEST(FleetAnalyze, AHostWhoseRanksSetThePaceInMostCollectiveTrialsIsASuspect) {
  FleetInput in;
  in.nodes = {node("a", 100), node("b", 100), node("c", 100)};
  in.nodes[0].pace_trials = 4;  // a's runs: c's rank was waited for in 3 of 4 trials, a's in 1
  in.nodes[0].pace_setter_hosts = {{"c", 3}, {"a", 1}};
  in.nodes[1].pace_trials = 4;  // b's runs: c again twice, the rest unknown
  in.nodes[1].pace_setter_hosts = {{"c", 2}};
  FleetReport r = analyze_fleet(in, FleetOptions{});
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].host, "c");
  EXPECT_NE(r.suspects[0].reasons[0].find("set the pace"), std::string::npos);
  EXPECT_NE(r.suspects[0].reasons[0].find("in 5 of the fleet's 8 collective trials"), std::string::npos);
  // Half of the trials is not more than half: no suspect.
  in.nodes[1].pace_setter_hosts = {{"c", 1}};
  EXPECT_TRUE(analyze_fleet(in, FleetOptions{}).suspects.empty());
}

// The console table, whole: one line per node with its verdict and worst slowdown, the reasons beneath.
TEST(FleetPrinters, TableGolden) {
  FleetInput in;
  in.nodes = {node("a", 100), node("b", 140), node("c", 101)};
  FleetReport r = analyze_fleet(in, FleetOptions{});
  // By hand: b against the nearer of {100, 101} is 140 / 101 = +38.6%; a is 100 / 101, c 101 / 100.
  EXPECT_EQ(render_fleet_table(r, /*wide=*/true),
            "fleet: 3 nodes, 1 suspect, tolerance 10%, 1 metrics\n"
            "host  verdict      worst  where / reasons\n"
            "a     pass         -1.0%  k/local gpu 0\n"
            "b     SUSPECT     +38.6%  k/local gpu 0\n"
            "        - k/local gpu 0: median +38.6% slower than the fleet median of its 2 peers (CI +37.2% .. +40.0% over "
            "10 rounds; tolerance 10%)\n"
            "c     pass         +0.0%  k/local gpu 0\n"
            "suspects, worst first: b\n");
}

// By default a reason wraps at spaces to 100 columns, its continuation under its text.
TEST(FleetPrinters, TableReasonsWrapAt100Columns) {
  FleetInput in;
  in.nodes = {node("a", 100), node("b", 140), node("c", 101)};
  const std::string table = render_fleet_table(analyze_fleet(in, FleetOptions{}));
  EXPECT_NE(table.find("        - k/local gpu 0: median +38.6% slower than the fleet median of its 2 peers (CI +37.2% ..\n"
                       "          +40.0% over 10 rounds; tolerance 10%)\n"),
            std::string::npos)
      << table;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}
