// The one output rule (cli/out_file.h) for every option that writes a result file: a FIFO, a character
// device, a link to one, a run's record, an earlier result and an unwritable path are refused (exit 2,
// one line naming the option and the path) before any work, and left exactly as they were; `-` and
// /dev/stdout are standard output (and /dev/stdout stays a link); a new path is written whole; --force
// replaces an earlier result but never a run's record.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "fleet_fixtures.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
namespace fs = std::filesystem;

namespace {

std::string src(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/" + rel; }

// One output option of one command: the command's other arguments, and whether it can run here (a CPU
// node, no MPI): those that cannot are checked for their refusals only, which come before any work.
struct Writer {
  std::string option;
  std::vector<std::string> args;
  bool runs_here = true;
  // report: an existing file is report.py's to judge (it replaces only a report it wrote; docs/reports.md).
  bool replaces_own_reports = false;
};

class OutputRule : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/pb-output-rule-" + std::to_string(::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/nodes");
    dir_ = fs::canonical(dir_).string();  // as the messages spell it
    for (const char* host : {"a", "b", "c"}) write_synthetic_node(dir_ + "/nodes/" + host, SyntheticNode{host});
    run_ = dir_ + "/nodes/a";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<Writer> writers() const {
    const std::string audit = src("tests/fixtures/audit"), queue = src("tests/fixtures/queue/");
    const std::vector<std::string> fleet = {"fleet", dir_ + "/nodes"};
    const std::vector<std::string> check = {"check", src("tests/fixtures/results/tiny-run"), "--reference",
                                            src("tests/fixtures/references/tiny-pass.yaml")};
    return {
        {"--json", fleet},
        {"--junit", fleet},
        {"--html", fleet},
        {"--prometheus", fleet},
        {"--junit", check},
        {"--markdown", check},
        {"--out", {"check", "--init-reference", run_}},
        {"--out", {"audit", "--no-managers", "--proc-root", audit + "/proc", "--topology", own_topology("2s2n-4gpu.xml"), "--pid", "4242"}},
        {"--out", {"feasible", "--inventory", src("tests/fixtures/decisions/cluster-stranded.yaml")}},
        {"--out", {"admission", src("tests/fixtures/admission/partial-waiting")}},
        {"--out", {"queue", "--inventory", queue + "article-cluster-fragmented.yaml", "--mix", queue + "pairs-mix.yaml"}},
        {"--export", {"topo"}},
        {"--out", {"verify", "--arm", "unpinned", "--bytes", "4K"}, false},
        {"-o", {"report", run_}, false, true},
    };
  }

  static CommandResult write(const Writer& w, const std::string& path, bool force = false) {
    std::vector<std::string> argv = {placebench_binary()};
    argv.insert(argv.end(), w.args.begin(), w.args.end());
    argv.insert(argv.end(), {w.option, path});
    if (force && !w.replaces_own_reports) argv.push_back("--force");  // report has no --force
    return run_command(argv, 60);
  }

  // Exit 2 with one line that names the option, the path and `why`.
  static void expect_refused(const Writer& w, const std::string& path, const std::string& why, bool force = false) {
    const std::string shown = w.args.front() + " " + w.option + " " + path;
    CommandResult r = write(w, path, force);
    EXPECT_FALSE(r.timed_out) << shown;
    EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << ": not one line: " << r.err;
    EXPECT_NE(r.err.find("placebench: " + w.option + " " + path + ": "), std::string::npos) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << shown << ": expected '" << why << "' in " << r.err;
    EXPECT_TRUE(r.out.empty()) << shown << ": work was done before the refusal: " << r.out.substr(0, 200);
  }

  std::string dir_, run_;
};

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

}  // namespace

TEST_F(OutputRule, AFifoOrALinkToOneIsRefusedAtOnceAndLeftAsItWas) {
  const std::string fifo = dir_ + "/fifo", link = dir_ + "/link-to-fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_symlink(fifo, link);
  for (const Writer& w : writers()) {
    expect_refused(w, fifo, "a FIFO, not a regular file");
    expect_refused(w, fifo, "a FIFO, not a regular file", true);
    expect_refused(w, link, "a symbolic link to " + fs::canonical(fifo).string() + ", a FIFO");
    EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
    EXPECT_TRUE(S_ISLNK(lstat_of(link).st_mode));
  }
}

// As root, the old writer replaced /dev/full with a JSON file. A character device made for the test where
// this process may (root, outside a user namespace that forbids it); /dev/full itself otherwise.
TEST_F(OutputRule, ACharacterDeviceIsRefusedAndKeepsItsInode) {
  std::string device = dir_ + "/full";
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) device = "/dev/full";
  const struct stat before = lstat_of(device);
  ASSERT_TRUE(S_ISCHR(before.st_mode)) << device;
  for (const Writer& w : writers()) {
    expect_refused(w, device, "a character device, not a regular file", true);
    const struct stat after = lstat_of(device);
    EXPECT_TRUE(S_ISCHR(after.st_mode)) << device << " was replaced by " << w.args.front() << " " << w.option;
    EXPECT_EQ(after.st_ino, before.st_ino) << device;
    EXPECT_EQ(after.st_rdev, before.st_rdev) << device;
  }
}

TEST_F(OutputRule, ARunsRecordIsNeverReplacedNotEvenWithForce) {
  for (const char* name : {"summary.json", "run.json", "trials.jsonl"}) {
    const std::string file = run_ + "/" + name, before = read_text_file(file);
    for (const Writer& w : writers()) {
      expect_refused(w, file, "the record of the run in " + run_, true);
      EXPECT_EQ(read_text_file(file), before) << name;
    }
  }
  // Nor one the run lacks yet (an interrupted run's summary.json), nor one reached through a link.
  fs::rename(run_ + "/summary.json", dir_ + "/summary.json.kept");
  const std::string link = dir_ + "/link-to-trials";
  fs::create_symlink(run_ + "/trials.jsonl", link);
  for (const Writer& w : writers()) {
    expect_refused(w, run_ + "/summary.json", "the record of the run in " + run_);
    expect_refused(w, link, "the record of the run in " + run_, true);
  }
  EXPECT_FALSE(fs::exists(run_ + "/summary.json"));
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST_F(OutputRule, AnEarlierResultIsKeptUnlessForced) {
  const std::string earlier = dir_ + "/earlier";
  for (const Writer& w : writers()) {
    write_text_file(earlier, "earlier\n");
    if (w.replaces_own_reports) {
      EXPECT_EQ(write(w, earlier).exit_code, 2);
      EXPECT_EQ(read_text_file(earlier), "earlier\n");
      continue;
    }
    expect_refused(w, earlier, "already exists; placebench does not replace a result file unless asked");
    EXPECT_EQ(read_text_file(earlier), "earlier\n");
    if (!w.runs_here) continue;
    CommandResult r = write(w, earlier, true);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << w.args.front() << " " << w.option << ": " << r.err;
    EXPECT_NE(read_text_file(earlier), "earlier\n") << w.args.front() << " " << w.option << " --force";
    EXPECT_FALSE(fs::exists(earlier + ".tmp"));
  }
}

TEST_F(OutputRule, AnUnwritablePathIsExitTwoNamingTheOptionAndThePath) {
  fs::create_symlink(dir_ + "/nowhere/x", dir_ + "/dangling");
  for (const Writer& w : writers()) {
    expect_refused(w, "/nonexistent-dir/out", "/nonexistent-dir is not a writable directory");
    expect_refused(w, dir_, "a directory, not a regular file");
    expect_refused(w, dir_ + "/dangling", "a symbolic link to nothing");
  }
}

// ISO 8601 UTC times (2026-12-06T04:42:34Z) replaced by a mark.
std::string without_timestamps(const std::string& line) {
  static const std::regex kTime(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  return std::regex_replace(line, kTime, "<time>");
}

TEST_F(OutputRule, DashAndDevStdoutAreStandardOutputAndANewPathIsWritten) {
  const struct stat dev_stdout = lstat_of("/dev/stdout");
  for (const Writer& w : writers()) {
    if (!w.runs_here) continue;
    const std::string shown = w.args.front() + " " + w.option;
    const std::string path = dir_ + "/new-" + w.args.front() + w.option;
    CommandResult file = write(w, path);
    ASSERT_TRUE(file.exit_code == 0 || file.exit_code == 1) << shown << ": " << file.err;
    const std::string written = read_text_file(path);
    EXPECT_FALSE(written.empty()) << shown;
    EXPECT_FALSE(fs::exists(path + ".tmp")) << shown;
    for (const char* name : {"-", "/dev/stdout"}) {
      CommandResult out = write(w, name);
      EXPECT_EQ(out.exit_code, file.exit_code) << shown << " " << name << ": " << out.err;
      // Only the file goes to standard output (no table beside it); its first line is the file's (but
      // for the time it was made: a reference's first line says when, and the two runs may straddle a second).
      EXPECT_EQ(without_timestamps(out.out.substr(0, out.out.find('\n'))),
                without_timestamps(written.substr(0, written.find('\n'))))
          << shown << " " << name;
      if (written.front() == '{') {
        EXPECT_FALSE(nlohmann::json::parse(out.out, nullptr, false).is_discarded()) << shown;
      }
    }
  }
  const struct stat after = lstat_of("/dev/stdout");
  EXPECT_EQ(after.st_ino, dev_stdout.st_ino);
  EXPECT_TRUE(S_ISLNK(after.st_mode));
}

TEST_F(OutputRule, TwoOutputsCannotBothBeStandardOutput) {
  CommandResult r = run_command({placebench_binary(), "fleet", dir_ + "/nodes", "--json", "-", "--junit", "/dev/stdout"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("only one output can go to standard output"), std::string::npos) << r.err;
}

// The refusal comes before any work: fleet refuses the FIFO before it looks for the (missing) runs.
TEST_F(OutputRule, TheOutputIsRefusedBeforeAnyInputIsRead) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  CommandResult r = run_command({placebench_binary(), "fleet", dir_ + "/no-such-runs", "--json", fifo});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json " + fifo + ": a FIFO"), std::string::npos) << r.err;
}
