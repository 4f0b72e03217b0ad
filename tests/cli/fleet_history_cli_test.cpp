// `fleet --history DB` ("changed since", issue 31): three nodes with 12 stored runs each; gpu-02 30% slower
// from its 7th run (a change point `history changes` finds), gpu-03 30% slower in its latest run only (beyond
// the tolerance from its stable level, no change point yet), gpu-01 flat. The JSON, the table (100 columns)
// and the Prometheus gauges say so; without --history nothing of it is printed; a refused store is exit 2.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fleet_fixtures.h"
#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fresh(const std::string& name) {
  std::string path = ::testing::TempDir() + "/pb-fleet-history-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(path);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  return path;
}

CommandResult pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args, 120, {"SOURCE_DATE_EPOCH=1764547200"});
}

// root/<host>/run-R for R in 0..11 (day R + 1), step times x 1.3 from run `slow_from` on.
void node_runs(const std::string& root, const std::string& host, int slow_from, int seed) {
  for (int r = 0; r < 12; ++r) {
    SyntheticNode node{host};
    node.rounds = 3;
    node.steps = 8;
    node.slowdown = (r >= slow_from ? 1.3 : 1.0) * (1 + 0.004 * ((r * 7 + seed) % 5 - 2));
    node.start_time = fmt::format("2026-12-{:02}T10:00:00Z", r + 1);
    write_synthetic_node(fmt::format("{}/{}/run-{}", root, host, r), node);
  }
}

struct Fleet {
  std::string root, db;
};

Fleet stored_fleet() {
  Fleet out{fresh("runs"), fresh("store.db")};
  node_runs(out.root, "gpu-01", 99, 1);
  node_runs(out.root, "gpu-02", 6, 2);
  node_runs(out.root, "gpu-03", 11, 3);
  EXPECT_EQ(pb({"history", "add", out.db, out.root}).exit_code, 0);
  return out;
}

const json& series_of(const json& j, const std::string& host, const std::string& cls, const std::string& arm,
                      const std::string& metric) {
  for (const json& s : j.at("changed_since").at("series"))
    if (s["host"] == host && s["class"] == cls && s["arm"] == arm && s["metric"] == metric) return s;
  static const json none;
  ADD_FAILURE() << "no series " << host << " " << cls << " " << arm << " " << metric;
  return none;
}

}  // namespace

namespace {

// The JSON: what changed since the stable level, and when.
void expect_json(const Fleet& f) {
  auto r = pb({"fleet", f.root, "--history", f.db, "--json", "-"});
  ASSERT_NE(r.exit_code, 2) << r.err;  // gpu-02 and gpu-03 are as slow as each other now: no suspect
  const json j = json::parse(r.out);
  EXPECT_EQ(j["changed_since"]["db"], f.db);
  EXPECT_EQ(j["changed_since"]["series"].size(), 18u);  // 3 nodes x (2 classes x (2 medians + 1 ratio_pct))
  const json& changed = series_of(j, "gpu-02", "staging-gpu0", "local", "median");
  EXPECT_EQ(changed["status"], "changed");
  ASSERT_TRUE(changed["last_change"].is_object()) << changed.dump();
  EXPECT_EQ(changed["last_change"]["start"], "2026-12-07T10:00:00Z");
  EXPECT_NEAR(changed["last_change"]["change_pct"].get<double>(), 30, 3);
  EXPECT_NEAR(changed["change_pct"].get<double>(), 0, 3);  // its stable level is the new one
  EXPECT_EQ(changed["segment_runs"], 5);
  const json& jumped = series_of(j, "gpu-03", "staging-gpu1", "remote", "median");
  EXPECT_TRUE(jumped["last_change"].is_null()) << jumped.dump();
  EXPECT_NEAR(jumped["change_pct"].get<double>(), 30, 3);
  EXPECT_EQ(jumped["segment_runs"], 11);
  EXPECT_EQ(jumped["start"], "2026-12-12T10:00:00Z");
  const json& flat = series_of(j, "gpu-01", "staging-gpu0", "remote", "ratio_pct");
  EXPECT_TRUE(flat["last_change"].is_null());
  EXPECT_NEAR(flat["change_pct"].get<double>(), 0, 1);
}

// The table: the moved series, in 100 columns.
void expect_table(const Fleet& f) {
  auto r = pb({"fleet", f.root, "--history", f.db});
  ASSERT_NE(r.exit_code, 2) << r.err;
  // The count line, wrapped at 100 columns wherever the store's path ends it: up to the table's header.
  const std::size_t from = r.out.find("changed since: "), to = r.out.find("\n  host ");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to) << r.out;
  std::string counts = r.out.substr(from, to - from);
  for (std::size_t at; (at = counts.find("\n  ")) != std::string::npos;) counts.replace(at, 3, " ");
  EXPECT_EQ(counts, "changed since: 18 series of 3 nodes in " + f.db + ": 4 beyond +-10% of their stable level, 4 with a "
                    "change point, 0 cannot tell (too few runs)");
  std::istringstream in(r.out);
  int gpu02 = 0, gpu03 = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("warning: ", 0) != 0) {  // fleet's warnings are as before
      EXPECT_LE(line.size(), 100u) << line;
    }
    if (line.rfind("  gpu-02 ", 0) == 0 && line.find("2026-12-07") != std::string::npos) ++gpu02;
    if (line.rfind("  gpu-03 ", 0) == 0 && line.find("none") != std::string::npos) ++gpu03;
    EXPECT_NE(line.rfind("  gpu-01 ", 0), 0u) << "a flat node is not listed: " << line;
  }
  EXPECT_EQ(gpu02, 4) << r.out;  // its four medians changed on day 7 (its ratios did not)
  EXPECT_EQ(gpu03, 4) << r.out;  // its four medians moved in the latest run, no change point yet
}

// The Prometheus gauges.
void expect_prometheus(const Fleet& f) {
  auto r = pb({"fleet", f.root, "--history", f.db, "--prometheus", "-"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const std::string labels = "{host=\"gpu-02\",class=\"staging-gpu0\",arm=\"local\",metric=\"median\"}";
  EXPECT_NE(r.out.find("# TYPE placebench_fleet_changed_since_ratio gauge\n"), std::string::npos);
  EXPECT_NE(r.out.find("placebench_fleet_last_change_timestamp_seconds" + labels + " 1796637600\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("placebench_fleet_last_change_ratio" + labels + " 0.3"), std::string::npos) << r.out;
  const std::string jumped = "placebench_fleet_changed_since_ratio{host=\"gpu-03\",class=\"staging-gpu0\",arm=\"local\",metric=\"median\"} ";
  const std::size_t at = r.out.find(jumped);
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(at + jumped.size())), 0.3, 0.03);
  EXPECT_EQ(r.out.find("placebench_fleet_last_change_timestamp_seconds{host=\"gpu-01\""), std::string::npos);
}

// The HTML page: the same rows as the table, in a section of their own.
void expect_html(const Fleet& f) {
  auto r = pb({"fleet", f.root, "--history", f.db, "--html", "-"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("<h2>Changed since (history " + f.db + ")</h2>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("18 series: 4 beyond &plusmn;10% of their stable level, 4 with a change point, 0 cannot tell"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<tr><td>gpu-02</td><td>staging-gpu0/local</td><td>median"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2026-12-07T10:00:00Z"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("<tr><td>gpu-01</td>"), std::string::npos) << "a flat node is not listed";
}

}  // namespace

TEST(FleetHistoryCli, JsonTableAndPrometheusSayWhatChangedSinceTheStableLevelAndWhen) {
  const Fleet f = stored_fleet();
  expect_json(f);
  expect_table(f);
  expect_prometheus(f);
  expect_html(f);
}

TEST(FleetHistoryCli, WithoutADatabaseNothingOfItAndARefusedOneIsExitTwo) {
  const Fleet f{fresh("small"), ""};
  for (const char* host : {"gpu-01", "gpu-02", "gpu-03"}) {
    SyntheticNode node{host};
    node.rounds = 3;
    node.steps = 8;
    write_synthetic_node(f.root + "/" + host + "/run-0", node);
  }
  for (const char* option : {"--json", "--prometheus", "--html"}) {
    auto r = pb({"fleet", f.root, option, "-"});
    EXPECT_EQ(r.out.find("changed_since"), std::string::npos) << option;
    EXPECT_EQ(r.out.find("last_change"), std::string::npos) << option;
    EXPECT_EQ(r.out.find("Changed since"), std::string::npos) << option;
  }
  EXPECT_EQ(pb({"fleet", f.root}).out.find("changed since"), std::string::npos);
  const std::string text = fresh("not-a-store.db");
  std::ofstream(text) << "not a store\n";
  auto bad = pb({"fleet", f.root, "--history", text});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find(text), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty()) << bad.out;
}
