// `placebench history` end to end: adds are idempotent whatever the path; parallel writer processes over
// overlapping run directories leave each run exactly once; a file that is not a store is one line, exit 2,
// and unchanged; list and show filter and print JSON; `run --history` adds the finished run.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

std::string fresh(const std::string& name) {
  std::string path = ::testing::TempDir() + "/pb-history-cli-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(path);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  return path;
}

CommandResult history(const std::vector<std::string>& args, double timeout_s = 120) {
  std::vector<std::string> argv = {placebench_binary(), "history"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, timeout_s);
}

std::string fixture_run(const char* name) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/results/" + name; }

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `nodes` nodes with `runs` runs each, <root>/node-N/run-R, every run its own start time (and so identity).
std::string history_dir(const std::string& name, int nodes, int runs) {
  std::string root = fresh(name);
  for (int n = 0; n < nodes; ++n)
    for (int r = 0; r < runs; ++r) {
      SyntheticNode node{"node-" + std::to_string(n)};
      node.rounds = 3;
      node.steps = 8;
      node.start_time = "2026-12-0" + std::to_string(r + 1) + "T10:00:00Z";  // runs <= 9
      fs::create_directories(root + "/" + node.host);
      write_synthetic_node(root + "/" + node.host + "/run-" + std::to_string(r), node);
    }
  return root;
}

json list_json(const std::string& db) {
  auto r = history({"list", db, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

// The command's stderr is one line naming `db`; exit 2; the file unchanged.
void expect_refused(const std::vector<std::string>& args, const std::string& db, const std::string& says) {
  const std::string before = bytes_of(db);
  auto r = history(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(bytes_of(db), before) << "the refused store was modified";
}

}  // namespace

TEST(HistoryCli, AddIsIdempotentWhateverThePath) {
  std::string db = fresh("idem.db"), copy = fresh("idem-copy");
  fs::copy(fixture_run("tiny-run"), copy);
  auto first = history({"add", db, fixture_run("tiny-run")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("1 added, 0 already in the store"), std::string::npos) << first.out;
  auto second = history({"add", db, copy, fixture_run("tiny-run") + "/."});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("already in the store: "), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("0 added, 2 already in the store"), std::string::npos) << second.out;
  json j = list_json(db);
  ASSERT_EQ(j["runs"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["runs"][0]["node"], "vm");
  EXPECT_EQ(j["runs"][0]["evidence"]["kernel"], nullptr);
  EXPECT_EQ(j["kind"], "history-list");
  for (const char* key : {"schema_version", "host", "generated_at", "placebench_version"}) EXPECT_TRUE(j.contains(key)) << key;
}

TEST(HistoryCli, ParallelWritersNeitherLoseNorDuplicateARun) {
  const int nodes = 4, runs = 5, writers = 6;
  std::string root = history_dir("parallel", nodes, runs);
  for (int attempt = 0; attempt < 2; ++attempt) {  // each time a new store: its creation races too
    std::string db = fresh("parallel-" + std::to_string(attempt) + ".db");
    // Writer p adds nodes p%4 and (p+1)%4, the second by another spelling of its path: every run by 3 writers.
    std::string script = "pids=(); for p in $(seq 0 " + std::to_string(writers - 1) + "); do "
                         "\"$0\" history add \"$1\" \"$2/node-$((p % 4))\" \"$2/./node-$(((p + 1) % 4))/\" --out \"$1.out-$p.json\" "
                         ">/dev/null 2>\"$1.err-$p\" & pids+=($!); done; "
                         "rc=0; for pid in \"${pids[@]}\"; do wait $pid || rc=1; done; exit $rc";
    auto r = run_command({"bash", "-c", script, placebench_binary(), db, root}, 240);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    int added = 0, already = 0;
    for (int p = 0; p < writers; ++p) {
      json out = json::parse(read_text_file(db + ".out-" + std::to_string(p) + ".json"));
      for (const json& run : out["runs"]) (run["status"] == "added" ? added : already) += 1;
      EXPECT_TRUE(out["not_added"].empty()) << read_text_file(db + ".err-" + std::to_string(p));
    }
    EXPECT_EQ(added, nodes * runs) << "each run added by exactly one writer";
    EXPECT_EQ(added + already, writers * 2 * runs);
    json j = list_json(db);
    ASSERT_EQ(j["runs"].size(), static_cast<std::size_t>(nodes * runs));
    std::set<std::string> keys;
    for (const json& run : j["runs"]) keys.insert(run["run"].get<std::string>());
    EXPECT_EQ(keys.size(), static_cast<std::size_t>(nodes * runs));
  }
}

TEST(HistoryCli, ShowFiltersAndPrintsEachRunsFigures) {
  std::string root = history_dir("show", 2, 3), db = fresh("show.db");
  ASSERT_EQ(history({"add", db, root}).exit_code, 0);
  auto table = history({"show", db, "--node", "node-1", "--class", "staging-gpu0", "--since", "2026-12-02"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("2 runs"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("staging-gpu1"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("kernel unknown"), std::string::npos) << table.out;
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  auto j = json::parse(history({"show", db, "--node", "node-0", "--metric", "ratio_pct", "--json"}).out);
  ASSERT_EQ(j["runs"].size(), 3u);
  for (const json& run : j["runs"]) {
    ASSERT_EQ(run["results"].size(), 2u) << run.dump(2);  // remote vs local, one per class
    for (const json& x : run["results"]) {
      EXPECT_EQ(x["metric"], "ratio_pct");
      EXPECT_LE(x["ci_lower"].get<double>(), x["value"].get<double>());
    }
  }
  auto bad = history({"list", db, "--until", "last week"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--until last week: not a date"), std::string::npos) << bad.err;
}

TEST(HistoryCli, ADamagedRunIsNotAddedAndTheOthersAre) {
  std::string root = history_dir("damaged-run", 1, 3), db = fresh("damaged-run.db");
  write_text_file(root + "/node-0/run-1/summary.json", "{\"schema_version\": 1, \"classes\": [");
  auto r = history({"add", db, root});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("not added: " + root + "/node-0/run-1/summary.json"), std::string::npos) << r.err;
  EXPECT_EQ(list_json(db)["runs"].size(), 2u);
  auto missing = history({"add", fresh("never.db"), fresh("no-such-dir")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_FALSE(fs::exists(fresh("never.db"))) << "the store is not created before every DIR is found";
  auto empty = history({"add", "", fixture_run("tiny-run")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("placebench history add: db: empty value"), std::string::npos) << empty.err;
}

TEST(HistoryCli, FilesThatAreNoStoreAreRefusedUnchanged) {
  std::string text = fresh("text.db");
  write_text_file(text, "this is not a database\n");
  expect_refused({"add", text, fixture_run("tiny-run")}, text, "not an SQLite database");
  expect_refused({"list", text}, text, "not an SQLite database");
  std::string db = fresh("newer.db");
  ASSERT_EQ(history({"add", db, fixture_run("tiny-run")}).exit_code, 0);
  std::string bytes = bytes_of(db);
  bytes[63] = 9;  // user_version 9
  std::ofstream(db, std::ios::binary) << bytes;
  expect_refused({"add", db, fixture_run("mixed-run")}, db, "schema version 9, newer");
  expect_refused({"show", db}, db, "schema version 9, newer");
  bytes[63] = 1;
  bytes[68] = 0x7f;  // another application_id
  std::ofstream(db, std::ios::binary) << bytes;
  expect_refused({"add", db, fixture_run("mixed-run")}, db, "another application");
  std::string cut = fresh("cut.db");
  ASSERT_EQ(history({"add", cut, fixture_run("tiny-run"), fixture_run("mixed-run")}).exit_code, 0);
  std::string whole = bytes_of(cut);
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() * 2 / 3);
  expect_refused({"add", cut, fixture_run("tiny-run")}, cut, "damaged");
}

TEST(HistoryCli, RunAddsTheFinishedRunAndRefusesABadStoreBeforeRunning) {
  std::string db = fresh("run.db"), out = fresh("run-out");
  std::string tiny = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/tiny.yaml";
  auto r = run_command({placebench_binary(), "run", "--config", tiny, "--out", out, "--seed", "11", "--quiet", "--history", db}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("added to " + db), std::string::npos) << r.err;
  json j = list_json(db);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["dir"], fs::weakly_canonical(out).string());
  auto again = history({"add", db, out});
  EXPECT_NE(again.out.find("0 added, 1 already"), std::string::npos) << again.out;
  std::string foreign = fresh("run-foreign.db"), never = fresh("run-never");
  write_text_file(foreign, std::string(2048, 'z'));
  auto refused = run_command({placebench_binary(), "run", "--config", tiny, "--out", never, "--quiet", "--history", foreign}, 300);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_FALSE(fs::exists(never)) << "nothing is run with a store that is refused";
}

// `history changes`: a node 30% slower from its 7th run on (of 12) is a change at that run, in a table within
// 100 columns and in the JSON contract; a store with too few runs says `too-short` and exits 0; a file that is
// no store is refused (exit 2, unchanged).
TEST(HistoryCli, ChangesFindsAStepAndSaysWhenASeriesIsTooShort) {
  std::string root = fresh("changes-runs"), db = fresh("changes.db");
  for (int r = 0; r < 12; ++r) {
    SyntheticNode node{"gpu-01"};
    node.rounds = 3;
    node.steps = 8;
    node.slowdown = (r >= 6 ? 1.3 : 1.0) * (1 + 0.004 * ((r * 7) % 5 - 2));  // some noise: a noiseless series'
                                                                            // scale falls back to one with the step
    node.start_time = fmt::format("2026-12-{:02}T10:00:00Z", r + 1);
    write_synthetic_node(root + "/run-" + std::to_string(r), node);
  }
  ASSERT_EQ(history({"add", db, root}).exit_code, 0);
  auto table = history({"changes", db});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(table.out.find(" changes in "), std::string::npos) << table.out;
  auto r = history({"changes", db, "--json", "--class", "staging-gpu0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["kind"], "placebench-history-changes");
  bool found = false;
  for (const json& s : j["series"]) {
    EXPECT_EQ(s["class"], "staging-gpu0");
    EXPECT_EQ(s["points"].size(), 12u);
    for (const json& c : s["changes"]) found = found || (c["index"] == 6 && c["relative"].get<double>() > 0.2);
  }
  EXPECT_TRUE(found) << r.out;
  auto short_one = history({"changes", db, "--json", "--since", "2026-12-08"});
  ASSERT_EQ(short_one.exit_code, 0) << short_one.err;
  for (const json& s : json::parse(short_one.out)["series"]) {
    EXPECT_EQ(s["status"], "too-short");
    EXPECT_TRUE(s["changes"].empty());
  }
  const std::string text = fresh("changes-text.db");
  std::ofstream(text) << "not a store\n";
  expect_refused({"changes", text}, text, "not an SQLite database");
}

namespace {

// `runs` runs of node gpu-02 (days 1..runs, a little noise), the last `slow_from` on 30% slower.
std::string gpu02_runs(const std::string& name, int runs, int slow_from) {
  std::string root = fresh(name);
  for (int r = 0; r < runs; ++r) {
    SyntheticNode node{"gpu-02"};
    node.rounds = 3;
    node.steps = 8;
    node.slowdown = (r >= slow_from ? 1.3 : 1.0) * (1 + 0.004 * ((r * 7) % 5 - 2));
    node.start_time = fmt::format("2026-12-{:02}T10:00:00Z", r + 1);
    write_synthetic_node(root + "/run-" + std::to_string(r), node);
  }
  return root;
}

CommandResult check_against(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {placebench_binary(), "check"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, 120);
}

}  // namespace

// `check --against-history`: a run 30% slower than the node's 8 earlier runs fails (exit 3, JUnit failures);
// a run like them passes (exit 0) even when already in the store (it is no baseline of itself); with 3 earlier
// runs every check is unknown: UNKNOWN, never PASS, exit 3; a file that is no store: exit 2, unchanged.
TEST(HistoryCli, CheckAgainstHistoryFailsARegressionAndNeverPassesUnknown) {
  const std::string root = gpu02_runs("against-runs", 10, 9), db = fresh("against.db"), junit = fresh("against.xml");
  for (int r = 0; r < 9; ++r) ASSERT_EQ(history({"add", db, root + "/run-" + std::to_string(r)}).exit_code, 0);
  auto slow = check_against({root + "/run-9", "--against-history", db, "--junit", junit});
  EXPECT_EQ(slow.exit_code, 3) << slow.out << slow.err;
  EXPECT_NE(slow.out.find("FAIL"), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("against its own past: regression since"), std::string::npos) << slow.out;
  EXPECT_EQ(read_text_file(junit).find("failures=\"0\""), std::string::npos);
  // stored; 8 runs before it; no other node in the store: its own history alone (check_peers_cli_test.cpp)
  auto same = check_against({root + "/run-8", "--against-history", db, "--min-peers", "0"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("PASS"), std::string::npos) << same.out;
  auto few = check_against({root + "/run-3", "--against-history", db, "--markdown", "-"});
  EXPECT_EQ(few.exit_code, 3) << few.out << few.err;
  EXPECT_NE(few.out.find("placebench check: UNKNOWN"), std::string::npos) << few.out;
  EXPECT_EQ(few.out.find("PASS"), std::string::npos) << few.out;
  EXPECT_NE(few.out.find("needed; add 2 more runs of gpu-02"), std::string::npos) << few.out;
  // A regression that has lasted 3 runs already (a change found there, too recent for a level of its own):
  // judged against the level before the change, so FAIL, not "cannot tell".
  const std::string lasting = gpu02_runs("against-lasting", 13, 9), ldb = fresh("against-lasting.db");
  for (int r = 0; r < 12; ++r) ASSERT_EQ(history({"add", ldb, lasting + "/run-" + std::to_string(r)}).exit_code, 0);
  auto still = check_against({lasting + "/run-12", "--against-history", ldb, "--min-peers", "0"});
  EXPECT_EQ(still.exit_code, 3) << still.out << still.err;
  EXPECT_NE(still.out.find("too recent for a level of its own"), std::string::npos) << still.out;
  EXPECT_EQ(still.out.find("UNKNOWN"), std::string::npos) << still.out;
  const std::string text = fresh("against-text.db");
  std::ofstream(text) << "not a store\n";
  const std::string before = bytes_of(text);
  auto bad = check_against({root + "/run-9", "--against-history", text});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_EQ(bytes_of(text), before);
}
