// Change points from the store (changes.h): series built in run order with the node's evidence; a step at a
// driver change found and attributed to it; an unknown (NULL) evidence item neither creates nor hides a
// change; a series too short is `too-short`, never stable; the same step on most nodes at once is a fleet
// change; the same answers through a real (temporary) store; the JSON's keys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "placebench/harness/history/changes.h"

using namespace placebench::harness::history;
namespace fs = std::filesystem;

namespace {

constexpr double kDay = 86400.0;
constexpr double kEpoch = 1764547200.0;  // 2025-12-01T00:00:00Z

// Run `i` of `node`: median `value` (CI +-0.5%) of class c/arm a, and its ratio_pct; started day i.
StoredRun run_of(const std::string& node, int i, double value, std::optional<std::string> driver) {
  StoredRun r;
  r.node = node;
  r.key = node + "-" + std::to_string(1000 + i);
  r.dir = "/results/" + r.key;
  r.start_epoch_s = kEpoch + i * kDay;
  r.start_time = "2025-12-" + std::to_string(10 + i / 24) + "T" + std::to_string(10 + i % 10) + ":00:00Z";
  r.complete = true;
  r.trials = 10;
  r.evidence.placebench_version = "0.1.0";
  r.evidence.cuda_driver = std::move(driver);
  r.evidence.numa_nodes = 2;
  r.results.push_back({"c", "a", "median", "ns", "compared", value, value * 0.995, value * 1.005, 0.95, 10, "slower",
                       std::nullopt, std::nullopt, ""});
  return r;
}

double noise(int i) { return 0.002 * std::sin(1.7 * i); }  // +-0.2%, deterministic

// `runs` runs, a `step` (fraction) from run `at` on, the driver 550.54 -> 560.28 at `driver_at` (-1: never).
std::vector<StoredRun> history_of(const std::string& node, int runs, int at, double step, int driver_at) {
  std::vector<StoredRun> out;
  for (int i = 0; i < runs; ++i)
    out.push_back(run_of(node, i, 1000.0 * (1 + noise(i)) * (i >= at ? 1 + step : 1.0),
                         driver_at >= 0 && i >= driver_at ? "560.28" : "550.54"));
  return out;
}

std::string fresh(const std::string& name) {
  std::string path = ::testing::TempDir() + "/pb-history-changes-" + name + "-" + std::to_string(::getpid());
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
  return path;
}

}  // namespace

TEST(HistoryChanges, SeriesAreInRunOrderWithTheirCi) {
  std::vector<StoredRun> runs = history_of("n1", 8, 100, 0, -1);
  std::swap(runs[0], runs[5]);
  const std::vector<HistorySeries> series = build_series(runs);
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(series[0].points[i].run_key, "n1-" + std::to_string(1000 + i));
    EXPECT_LT(series[0].points[i].ci_low, series[0].points[i].value);
    EXPECT_GT(series[0].points[i].ci_high, series[0].points[i].value);
  }
}

TEST(HistoryChanges, AStepAtADriverChangeIsFoundAndAttributed) {
  const ChangesReport report = find_changes(history_of("n1", 30, 15, 0.05, 15));
  ASSERT_EQ(report.series.size(), 1u);
  const HistorySeries& s = report.series[0];
  EXPECT_EQ(s.status, "changed");
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_EQ(s.changes[0].change.index, 15u);
  EXPECT_NEAR(s.changes[0].change.relative_change, 0.05, 0.01);
  ASSERT_TRUE(s.changes[0].attribution);
  EXPECT_NE(s.changes[0].attribution->find("cuda_driver 550.54 -> 560.28"), std::string::npos) << *s.changes[0].attribution;
  EXPECT_FALSE(s.changes[0].fleet) << "one node alone is never a fleet change";
  EXPECT_TRUE(report.fleet_changes.empty());
}

TEST(HistoryChanges, AStepWithoutAnEvidenceChangeIsAttributedToNothing) {
  const ChangesReport report = find_changes(history_of("n1", 30, 15, 0.05, -1));
  ASSERT_EQ(report.change_count(), 1u);
  EXPECT_FALSE(report.series[0].changes[0].attribution);
  EXPECT_NE(render_changes_table(report, false).find("evidence: none recorded"), std::string::npos);
}

TEST(HistoryChanges, UnknownEvidenceNeitherCreatesNorHidesAChange) {
  std::vector<StoredRun> flat = history_of("n1", 30, 100, 0, -1);
  for (std::size_t i = 0; i < flat.size(); i += 3) flat[i].evidence.cuda_driver.reset();  // NULL every third run
  flat[0].evidence.numa_nodes.reset();                                                   // and a leading NULL
  const std::vector<HistorySeries> series = build_series(flat);
  for (const SeriesRunPoint& p : series[0].points) EXPECT_EQ(p.evidence_detail, series[0].points[1].evidence_detail);
  EXPECT_EQ(find_changes(flat).change_count(), 0u);
  // The driver unknown around the step, known before and after it: the change is still found and attributed.
  std::vector<StoredRun> step = history_of("n1", 30, 15, 0.05, 15);
  for (int i : {14, 15}) step[static_cast<std::size_t>(i)].evidence.cuda_driver.reset();
  const ChangesReport report = find_changes(step);
  ASSERT_EQ(report.change_count(), 1u);
  ASSERT_TRUE(report.series[0].changes[0].attribution);
  EXPECT_NE(report.series[0].changes[0].attribution->find("560.28"), std::string::npos);
}

TEST(HistoryChanges, ASeriesTooShortCannotTell) {
  const ChangesReport report = find_changes(history_of("n1", 5, 2, 0.5, 2));
  EXPECT_EQ(report.series[0].status, "too-short");
  EXPECT_EQ(report.change_count(), 0u);
  EXPECT_NE(render_changes_table(report, false).find("too short to tell: 5 runs (needs 6)"), std::string::npos);
  EXPECT_EQ(changes_to_json("db", report)["series"][0]["status"], "too-short");
}

TEST(HistoryChanges, TheSameStepOnMostNodesAtOnceIsAFleetChange) {
  std::vector<StoredRun> runs;
  for (const char* node : {"n1", "n2", "n3"})
    for (StoredRun& r : history_of(node, 30, 15, 0.05, 15)) runs.push_back(std::move(r));
  for (StoredRun& r : history_of("n4", 30, 100, 0, -1)) runs.push_back(std::move(r));  // flat: 3 of 4 changed
  const ChangesReport report = find_changes(runs);
  EXPECT_EQ(report.change_count(), 3u);
  for (const HistorySeries& s : report.series)
    for (const SeriesChange& c : s.changes) EXPECT_TRUE(c.fleet) << s.node;
  ASSERT_EQ(report.fleet_changes.size(), 1u);
  EXPECT_EQ(report.fleet_changes[0].nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(report.fleet_changes[0].metric, "median");
  EXPECT_NE(render_changes_table(report, false).find("3 changes in 4 series; 1 fleet change;"), std::string::npos);
}

TEST(HistoryChanges, ThroughAStoreTheSameAnswerAndTheJsonContract) {
  const std::string db = fresh("store.db");
  const std::vector<StoredRun> runs = history_of("n1", 30, 15, 0.05, 15);
  {
    Store store = Store::open_for_writing(db);
    store.add(runs);
  }
  const Store store = Store::open_for_reading(db);
  const ChangesReport report = find_changes(store, HistoryFilter{});
  ASSERT_EQ(report.change_count(), 1u);
  const nlohmann::json j = changes_to_json(db, report);
  EXPECT_EQ(j["kind"], "placebench-history-changes");
  EXPECT_EQ(j["schema_version"], 1);
  const nlohmann::json& s = j["series"][0];
  for (const char* key : {"node", "class", "arm", "metric", "status", "points", "changes"}) EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["points"].size(), 30u);
  for (const char* key : {"run_key", "start", "value", "ci_low", "ci_high"}) EXPECT_TRUE(s["points"][0].contains(key)) << key;
  const nlohmann::json& c = s["changes"][0];
  for (const char* key : {"index", "run_key", "start", "before", "after", "relative", "p_value", "attribution", "fleet"})
    EXPECT_TRUE(c.contains(key)) << key;
  EXPECT_EQ(c["index"], 15);
  EXPECT_EQ(c["run_key"], "n1-1015");
  EXPECT_TRUE(j["fleet_changes"].is_array());
  HistoryFilter other;
  other.node = "n2";
  EXPECT_TRUE(find_changes(store, other).series.empty());
}
