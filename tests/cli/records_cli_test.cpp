// Recorded results are never lost or overwritten, end to end: what `run` accepts its readers accept
// afterwards (--rounds), a new run never replaces a recorded one (--out), --resume never replaces a summary
// it cannot account for, paths that run.json cannot record are refused before anything is created, and a
// write that fails (file too large, read-only) leaves no temporary file and the previous file intact.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string src(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/" + rel; }
std::string tiny() { return src("tests/fixtures/configs/tiny.yaml"); }

std::string scratch(const std::string& name) {
  std::string d = ::testing::TempDir() + "/pb-records-" + name;
  fs::remove_all(d);
  return d;
}

// A fresh copy of the committed tiny run (8 trials, complete summary).
std::string copy_tiny_run(const std::string& name) {
  std::string dir = scratch(name);
  fs::copy(src("tests/fixtures/results/tiny-run"), dir, fs::copy_options::recursive);
  return dir;
}

CommandResult pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args, 120);
}

// placebench under a shell limit on the size of any file it writes (ulimit -f, in KiB): each write past it
// fails with EFBIG, as on a full disk, and works as root too (which a read-only directory does not stop).
CommandResult placebench_with_file_limit(int kib, const std::vector<std::string>& args, const std::string& chmod_dir = "") {
  std::string script = (chmod_dir.empty() ? "" : "chmod 0555 '" + chmod_dir + "'; ") + "ulimit -f " + std::to_string(kib) +
                       "; exec '" + placebench_binary() + "'";
  for (const auto& a : args) script += " '" + a + "'";
  auto r = run_command({"bash", "-c", script}, 120);
  if (!chmod_dir.empty()) fs::permissions(chmod_dir, fs::perms::owner_all, fs::perm_options::add);
  return r;
}

void expect_refused(const CommandResult& r, const std::string& needle, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.out << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": " << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << what << ": " << r.err;
}

bool has_tmp_file(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tmp") return true;
  return false;
}

}  // namespace

TEST(RecordsCli, RoundsAreParsedWhollyWithinTheConfigLimits) {
  for (const char* rounds : {"2:2000000000", "2:100001", "2:3:4", "2.5:3", "2:3x", "+2:3", "-2:3", " 2:3", "1:3", "4:3", ":3", "2:"}) {
    std::string out = scratch("rounds");
    auto r = pb({"run", "--config", tiny(), "--rounds", rounds, "--out", out});
    expect_refused(r, "--rounds", rounds);
    EXPECT_FALSE(fs::exists(out)) << rounds << ": a refused run created its directory";
  }
  auto r = pb({"run", "--config", tiny(), "--rounds", "2:100001", "--out", scratch("rounds")});
  EXPECT_NE(r.err.find("need 2 <= MIN <= MAX <= 100000"), std::string::npos) << r.err;
  // What run accepts, its readers accept afterwards.
  std::string out = scratch("rounds-ok");
  r = pb({"run", "--config", tiny(), "--rounds", "2:3", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(read_text_file(out + "/run.json"))["config"]["rounds"]["max"], 3);
  EXPECT_EQ(pb({"compare", out}).exit_code, 0);
  EXPECT_EQ(pb({"run", "--resume", out}).exit_code, 0);
}

TEST(RecordsCli, ANewRunNeverReplacesARecordedOne) {
  std::string dir = copy_tiny_run("out-over-run");
  std::string run_before = read_text_file(dir + "/run.json"), summary_before = read_text_file(dir + "/summary.json");
  fs::remove(dir + "/trials.jsonl");  // run.json and summary.json alone still hold a run
  auto r = pb({"run", "--config", tiny(), "--out", dir});
  expect_refused(r, "--out " + dir + " already holds a run; use --resume " + dir + " or another --out", "--out over a run");
  EXPECT_EQ(read_text_file(dir + "/run.json"), run_before);
  EXPECT_EQ(read_text_file(dir + "/summary.json"), summary_before);
  EXPECT_FALSE(fs::exists(dir + "/trials.jsonl"));
  // A directory without a run may be used.
  std::string empty = scratch("out-empty");
  fs::create_directories(empty);
  std::ofstream(empty + "/notes.txt") << "mine\n";
  EXPECT_EQ(pb({"run", "--config", tiny(), "--rounds", "2:2", "--out", empty}).exit_code, 0);
  EXPECT_EQ(read_text_file(empty + "/notes.txt"), "mine\n");
}

TEST(RecordsCli, ResumeNeverReplacesASummaryItCannotAccountFor) {
  // A summary of more trials than trials.jsonl holds.
  std::string dir = copy_tiny_run("resume-fewer");
  std::string trials = read_text_file(dir + "/trials.jsonl");
  std::string three = trials.substr(0, [&] {
    std::size_t p = 0;
    for (int i = 0; i < 3; ++i) p = trials.find('\n', p) + 1;
    return p;
  }());
  std::ofstream(dir + "/trials.jsonl", std::ios::trunc) << three << "{\"class\":\"tiny\",\"ar";  // and a torn line
  std::string summary = read_text_file(dir + "/summary.json");
  auto r = pb({"run", "--resume", dir});
  expect_refused(r, "summary.json records 8 trials and trials.jsonl holds 3; not resuming over it", "resume over 8");
  EXPECT_EQ(read_text_file(dir + "/summary.json"), summary);
  EXPECT_EQ(read_text_file(dir + "/trials.jsonl"), three + "{\"class\":\"tiny\",\"ar");  // nothing written, not even the repair
  // A summary of another schema version.
  dir = copy_tiny_run("resume-version");
  json s = json::parse(read_text_file(dir + "/summary.json"));
  s["schema_version"] = 99;
  std::ofstream(dir + "/summary.json", std::ios::trunc) << s.dump(2);
  summary = read_text_file(dir + "/summary.json");
  trials = read_text_file(dir + "/trials.jsonl");
  expect_refused(pb({"run", "--resume", dir}), "schema_version 99 is not the 2", "resume over version 99");
  EXPECT_EQ(read_text_file(dir + "/summary.json"), summary);
  EXPECT_EQ(read_text_file(dir + "/trials.jsonl"), trials);
}

TEST(RecordsCli, ResumeKeepsAWholeLastTrialWithoutItsNewline) {
  std::string out = scratch("resume-newline");
  ASSERT_EQ(pb({"run", "--config", tiny(), "--rounds", "3:3", "--out", out, "--seed", "5"}).exit_code, 0);
  std::string text = read_text_file(out + "/trials.jsonl");
  std::size_t cut = text.rfind('\n', text.size() - 2) + 1;  // the last two lines go: one whole, one without newline
  std::string kept = text.substr(0, cut), last = text.substr(cut, text.size() - cut - 1);
  std::string before_last = kept.substr(0, kept.rfind('\n', kept.size() - 2) + 1);
  std::ofstream(out + "/trials.jsonl", std::ios::trunc) << before_last << last;  // 4 of 6 lines, the 5th lost
  fs::remove(out + "/summary.json");
  auto r = pb({"run", "--resume", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("truncated"), std::string::npos) << r.err;
  std::string after = read_text_file(out + "/trials.jsonl");
  EXPECT_EQ(after.substr(0, before_last.size() + last.size() + 1), before_last + last + "\n");  // kept, newline added
  std::size_t lines = 0;
  for (char ch : after) lines += ch == '\n';
  EXPECT_EQ(lines, 6u);  // 3 rounds x 2 arms: only the lost trial measured again
  EXPECT_EQ(json::parse(read_text_file(out + "/summary.json"))["trials"], 6);
}

TEST(RecordsCli, PathsRunJsonCannotRecordAreRefusedBeforeAnythingIsCreated) {
  std::string base = scratch("utf8");
  fs::create_directories(base);
  std::string out = base + "/bad-\xff\xfe-name";
  auto r = pb({"run", "--config", tiny(), "--out", out});
  expect_refused(r, "the path is not valid UTF-8", "--out not UTF-8");
  EXPECT_NE(r.err.find("\\xff\\xfe"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(base)) << "a refused run left a directory behind";
}

TEST(RecordsCli, AFailedWriteLeavesNoTemporaryFileAndThePreviousFileIntact) {
  // compare --write-summary: asked to write, cannot: exit 2, one line, summary.json as it was.
  std::string dir = copy_tiny_run("efbig-summary");
  std::string before = read_text_file(dir + "/summary.json");
  auto r = placebench_with_file_limit(1, {"compare", dir, "--write-summary"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("summary.json: cannot write it (File too large)"), std::string::npos) << r.err;
  EXPECT_EQ(read_text_file(dir + "/summary.json"), before);
  EXPECT_FALSE(has_tmp_file(dir));
  // run: run.json cannot be written: exit 1 with a clear line, no run.json.tmp.
  std::string out = scratch("efbig-run");
  r = placebench_with_file_limit(1, {"run", "--config", tiny(), "--out", out});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("run.json: cannot write it (File too large)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out + "/run.json"));
  EXPECT_FALSE(has_tmp_file(out));
  // check --junit: the option named, exit 2.
  r = placebench_with_file_limit(0, {"check", dir, "--reference", src("tests/fixtures/references/tiny-pass.yaml"),
                                     "--junit", scratch("efbig-junit.xml")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--junit "), std::string::npos) << r.err;
}

TEST(RecordsCli, CompareOnAnUnwritableRunDirectoryStillPrintsItsTable) {
  std::string dir = copy_tiny_run("readonly");
  fs::remove(dir + "/summary.json");  // compare writes it when missing
  auto r = placebench_with_file_limit(0, {"compare", dir}, dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Class tiny"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: summary.json not written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/summary.json"));
  EXPECT_FALSE(has_tmp_file(dir));
  r = placebench_with_file_limit(0, {"compare", dir, "--write-summary"}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--write-summary: "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
