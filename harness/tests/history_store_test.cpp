// The results store (history.h): a run read from its directory (identity, evidence, figures), added once
// whatever its path, replaced only by more of its own trials, queried with filters; and a file that is not
// a store (not SQLite, damaged, another application's, a newer schema) refused with one line naming it and
// the fix, its bytes unchanged.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/history/history.h"

using namespace placebench::harness;
using namespace placebench::harness::history;
namespace fs = std::filesystem;

namespace {

std::string fixture_run(const char* name) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/results/" + name; }

std::string fresh(const std::string& name) {
  std::string path = ::testing::TempDir() + "/pb-history-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(path);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  return path;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// A store holding the tiny fixture run, closed (its WAL folded back into the file).
std::string store_with_one_run(const std::string& name) {
  std::string db = fresh(name);
  Store store = Store::open_for_writing(db);
  store.add({read_stored_run(fixture_run("tiny-run"))});
  return db;
}

void put_be32(std::string& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}

// Opening `db` for writing and for reading throws an InputError that names it and contains `says`; the file's
// bytes are unchanged and no journal is left beside it.
void expect_refused(const std::string& db, const std::string& says) {
  const std::string before = bytes_of(db);
  for (bool writing : {true, false}) {
    try {
      if (writing) Store::open_for_writing(db);
      else Store::open_for_reading(db);
      ADD_FAILURE() << db << " was opened " << (writing ? "for writing" : "for reading");
    } catch (const InputError& e) {
      std::string what = e.what();
      EXPECT_EQ(what.rfind(db + ": ", 0), 0u) << what;
      EXPECT_NE(what.find(says), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
    EXPECT_EQ(bytes_of(db), before) << "the refused file was modified";
  }
  EXPECT_FALSE(fs::exists(db + "-journal"));
}

}  // namespace

TEST(HistoryRead, TinyRunGivesItsIdentityEvidenceAndFigures) {
  StoredRun r = read_stored_run(fixture_run("tiny-run"));
  EXPECT_EQ(r.key.size(), 16u);
  EXPECT_EQ(r.node, "vm");
  EXPECT_EQ(r.start_time, "2026-11-30T10:09:31Z");
  EXPECT_TRUE(r.complete);
  EXPECT_GT(r.trials, 0);
  EXPECT_EQ(r.evidence.placebench_version, "0.1.0");
  EXPECT_EQ(r.evidence.git_revision, "5bb569ef4af1-dirty");
  EXPECT_EQ(r.evidence.cuda_driver, "no driver");
  EXPECT_EQ(r.evidence.hwloc, "2.9.0");
  EXPECT_EQ(r.evidence.numa_nodes, 1);
  EXPECT_EQ(r.evidence.gpus, 0);
  EXPECT_FALSE(r.evidence.kernel.has_value());  // run.json records none: unknown, never guessed
  EXPECT_NE(r.evidence.detail().find("kernel unknown"), std::string::npos);
  ASSERT_TRUE(r.evidence.topology_digest.has_value());
  // Per arm the class statistic with its CI; the compared arm also its ratio.
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[0].arm, "local");
  EXPECT_EQ(r.results[0].role, "baseline");
  EXPECT_EQ(r.results[2].metric, "ratio_pct");
  EXPECT_EQ(r.results[2].unit, "%");
  for (const StoredResult& x : r.results) {
    ASSERT_TRUE(x.value && x.ci_lower && x.ci_upper) << x.metric;
    EXPECT_LE(*x.ci_lower, *x.value);
    EXPECT_LE(*x.value, *x.ci_upper);
  }
}

TEST(HistoryRead, IdentityIsTheContentNotThePath) {
  std::string copy = fresh("copy");
  fs::copy(fixture_run("tiny-run"), copy);
  EXPECT_EQ(read_stored_run(copy).key, read_stored_run(fixture_run("tiny-run")).key);
  EXPECT_NE(read_stored_run(fixture_run("mixed-run")).key, read_stored_run(copy).key);
}

// A finished run is read from run.json and summary.json (its trial lines counted, not parsed); a run whose
// trials.jsonl does not hold exactly the summary's trials is read line by line, as `check` reads it: the
// figures agree where both apply, lines the summary does not count are analysed, and damage still names
// its file.
TEST(HistoryRead, SummaryAndTrialLinesGiveTheSameRun) {
  const StoredRun summarised = read_stored_run(fixture_run("tiny-run"));
  std::string cut = fresh("cut-line");
  fs::copy(fixture_run("tiny-run"), cut);
  std::ofstream(cut + "/trials.jsonl", std::ios::app) << "{\"class\": \"cut sh";  // a trial cut short: ignored
  const StoredRun full = read_stored_run(cut);
  EXPECT_EQ(full.key, summarised.key);
  EXPECT_EQ(full.trials, summarised.trials);
  ASSERT_EQ(full.results.size(), summarised.results.size());
  for (std::size_t i = 0; i < full.results.size(); ++i) {
    EXPECT_EQ(full.results[i].metric, summarised.results[i].metric);
    EXPECT_EQ(full.results[i].value, summarised.results[i].value);
    EXPECT_EQ(full.results[i].ci_lower, summarised.results[i].ci_lower);
  }
  std::string unsummarised = fresh("no-summary");  // an interrupted run that never wrote its summary
  fs::copy(fixture_run("tiny-run"), unsummarised);
  fs::remove(unsummarised + "/summary.json");
  const StoredRun recomputed = read_stored_run(unsummarised);
  EXPECT_EQ(recomputed.trials, summarised.trials);
  EXPECT_FALSE(recomputed.complete);
  EXPECT_EQ(recomputed.results.size(), summarised.results.size());
  std::string lost = fresh("lost-line");
  fs::copy(fixture_run("tiny-run"), lost);
  std::string trials = bytes_of(lost + "/trials.jsonl");
  write_bytes(lost + "/trials.jsonl", trials.substr(0, trials.find('\n') + 1));
  EXPECT_THROW(
      try { read_stored_run(lost); } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("trials were lost"), std::string::npos) << e.what();
        throw;
      },
      InputError);
  fs::remove(lost + "/trials.jsonl");
  EXPECT_THROW(
      try { read_stored_run(lost); } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(lost + "/trials.jsonl"), std::string::npos) << e.what();
        throw;
      },
      InputError);
}

TEST(HistoryStore, AddsARunOnceWhateverItsPath) {
  std::string db = fresh("once.db"), copy = fresh("once-copy");
  fs::copy(fixture_run("tiny-run"), copy);
  Store store = Store::open_for_writing(db);
  auto first = store.add({read_stored_run(fixture_run("tiny-run"))});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].status, AddStatus::kAdded);
  auto again = store.add({read_stored_run(copy), read_stored_run(fixture_run("tiny-run"))});
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].status, AddStatus::kAlready);
  EXPECT_EQ(again[0].stored_dir, fs::weakly_canonical(fixture_run("tiny-run")).string());
  EXPECT_EQ(again[1].status, AddStatus::kAlready);
  EXPECT_EQ(store.run_count(), 1);
  EXPECT_EQ(store.show({}).at(0).results.size(), 3u);
}

TEST(HistoryStore, MoreTrialsOfTheSameRunReplaceItsFigures) {
  std::string db = fresh("update.db");
  Store store = Store::open_for_writing(db);
  StoredRun r = read_stored_run(fixture_run("tiny-run"));
  StoredRun partial = r;
  partial.trials -= 2;
  partial.complete = false;
  partial.results.resize(1);
  EXPECT_EQ(store.add({partial}).at(0).status, AddStatus::kAdded);
  EXPECT_EQ(store.add({partial}).at(0).status, AddStatus::kAlready);
  EXPECT_EQ(store.add({r}).at(0).status, AddStatus::kUpdated);
  std::vector<StoredRun> shown = store.show({});
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_TRUE(shown[0].complete);
  EXPECT_EQ(shown[0].trials, r.trials);
  EXPECT_EQ(shown[0].results.size(), r.results.size());
  EXPECT_EQ(store.add({partial}).at(0).status, AddStatus::kAlready);  // fewer trials never replace more
}

TEST(HistoryStore, FiltersSelectRunsAndRows) {
  std::string db = fresh("filters.db");
  {
    Store store = Store::open_for_writing(db);
    store.add({read_stored_run(fixture_run("tiny-run")), read_stored_run(fixture_run("mixed-run"))});
  }
  Store store = Store::open_for_reading(db);
  EXPECT_EQ(store.list({}).size(), 2u);
  HistoryFilter by_class;
  by_class.class_name = "tiny";
  std::vector<StoredRun> tiny = store.show(by_class);
  ASSERT_EQ(tiny.size(), 1u);
  for (const StoredResult& x : tiny[0].results) EXPECT_EQ(x.class_name, "tiny");
  HistoryFilter metric;
  metric.metric = "ratio_pct";
  for (const StoredRun& r : store.show(metric))
    for (const StoredResult& x : r.results) EXPECT_EQ(x.metric, "ratio_pct");
  HistoryFilter later;
  later.since_epoch_s = parse_history_date("--since", "2099-01-01");
  EXPECT_TRUE(store.list(later).empty());
  HistoryFilter earlier;
  earlier.until_epoch_s = parse_history_date("--until", "2099-01-01T00:00:00Z");
  EXPECT_EQ(store.list(earlier).size(), 2u);
  HistoryFilter by_run;
  by_run.run = tiny[0].key.substr(0, 6);
  ASSERT_EQ(store.list(by_run).size(), 1u);
  EXPECT_EQ(store.list(by_run)[0].result_count, 3);
  HistoryFilter nobody;
  nobody.node = "no-such-node";
  EXPECT_TRUE(store.list(nobody).empty());
  EXPECT_THROW(parse_history_date("--since", "yesterday"), InputError);
}

// The peers of a run: each other node's newest complete runs of the same config, started no later than it
// (a run without a start time is the oldest), at most `per_node` a node, newest first, with their results.
TEST(HistoryStore, LatestOfOtherNodesTakesEachPeersNewestCompleteRuns) {
  const StoredRun tiny = read_stored_run(fixture_run("tiny-run"));
  std::vector<StoredRun> runs;
  const auto copy = [&](const std::string& node, int n, std::optional<double> start, bool complete, const std::string& config) {
    StoredRun r = tiny;
    r.node = node;
    r.key = fmt::format("{}-{}", node, n);
    r.start_epoch_s = start;
    r.complete = complete;
    r.config_name = config;
    runs.push_back(r);
  };
  copy("self", 0, 100, true, tiny.config_name);
  for (int i = 0; i < 4; ++i) copy("a", i, 10.0 * i, true, tiny.config_name);  // 0, 10, 20, 30
  copy("a", 9, 500, true, tiny.config_name);                                   // after the run: not a peer's
  copy("b", 0, std::nullopt, true, tiny.config_name);                          // no start: the oldest
  copy("b", 1, 50, false, tiny.config_name);                                   // incomplete
  copy("c", 0, 40, true, "another-config");
  std::string db = fresh("peers.db");
  Store::open_for_writing(db).add(runs);
  Store store = Store::open_for_reading(db);
  std::vector<std::string> keys;
  for (const StoredRun& r : store.latest_of_other_nodes(tiny.config_name, "self", 100.0, 2)) {
    keys.push_back(r.key);
    EXPECT_EQ(r.results.size(), tiny.results.size()) << r.key;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"a-3", "a-2", "b-0"}));
  keys.clear();
  for (const StoredRun& r : store.latest_of_other_nodes(tiny.config_name, "self", std::nullopt, 1)) keys.push_back(r.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a-9", "b-0"}));
}

TEST(HistoryStore, ReopensItsOwnFileAndRefusesAMissingOneForReading) {
  std::string db = store_with_one_run("reopen.db");
  EXPECT_EQ(Store::open_for_writing(db).run_count(), 1);
  EXPECT_EQ(Store::open_for_reading(db).run_count(), 1);
  EXPECT_THROW(Store::open_for_reading(fresh("missing.db")), InputError);
  EXPECT_FALSE(fs::exists(fresh("missing.db")));
}

TEST(HistoryStoreRefusal, NotSqlite) {
  std::string db = fresh("text.db");
  write_bytes(db, "node,run,value\nn1,r1,3.5\n" + std::string(4096, 'x'));
  expect_refused(db, "not an SQLite database");
}

TEST(HistoryStoreRefusal, AnotherApplicationsDatabase) {
  std::string db = store_with_one_run("foreign.db");
  std::string bytes = bytes_of(db);
  put_be32(bytes, 68, 0x12345678);  // the header's application_id
  write_bytes(db, bytes);
  expect_refused(db, "another application (application_id 0x12345678");
}

TEST(HistoryStoreRefusal, NewerSchemaVersion) {
  std::string db = store_with_one_run("newer.db");
  std::string bytes = bytes_of(db);
  put_be32(bytes, 60, kHistorySchemaVersion + 1);  // the header's user_version
  write_bytes(db, bytes);
  expect_refused(db, "newer than this placebench reads");
}

TEST(HistoryStoreRefusal, DamagedSchemaPage) {
  std::string db = store_with_one_run("damaged.db");
  std::string bytes = bytes_of(db);
  for (std::size_t i = 100; i < 4096 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);  // page 1 after the header
  write_bytes(db, bytes);
  expect_refused(db, "damaged");
}

TEST(HistoryStoreRefusal, DamagedDataPage) {
  std::string db = store_with_one_run("damaged-data.db");
  std::string bytes = bytes_of(db);
  ASSERT_GT(bytes.size(), 3 * 4096u);
  for (std::size_t i = bytes.size() - 4096 + 8; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x5A);  // the last page
  write_bytes(db, bytes);
  // Writing reads every page first (quick_check): the damage is found before anything is written.
  const std::string before = bytes_of(db);
  try {
    Store::open_for_writing(db);
    ADD_FAILURE() << "a damaged store was opened for writing";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes_of(db), before);
}

TEST(HistoryStoreRefusal, Truncated) {
  std::string db = store_with_one_run("truncated.db");
  std::string bytes = bytes_of(db);
  write_bytes(db, bytes.substr(0, bytes.size() / 2));
  const std::string before = bytes_of(db);
  EXPECT_THROW(Store::open_for_writing(db), InputError);
  EXPECT_EQ(bytes_of(db), before);
}

TEST(HistoryStoreRefusal, ADirectory) {
  std::string dir = fresh("dir.db");
  fs::create_directories(dir);
  EXPECT_THROW(Store::open_for_writing(dir), InputError);
}
