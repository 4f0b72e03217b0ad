// Every input file goes through one bounded reader (hostpipe/input_file.h, through harness/input_limits.h) and every YAML document through
// one bounded walk (load_yaml_document): a FIFO, /dev/zero, an oversized file, an alias bomb, a list used
// as a key, bytes that are not UTF-8 are each one line, exit 2, fast -- never a hang, bad_alloc or a raw
// library message (exit 1).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "run_command.h"
#include "yaml_fixtures.h"

using namespace placebench::testing;

namespace {

constexpr double kDeadline_s = 30;  // "it did not hang": each case answers in well under a second

std::string src(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/" + rel; }

std::string temp_path(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/pb-input-limits";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name;
  std::filesystem::remove_all(path);
  return path;
}

std::string write(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string fifo(const std::string& name) {
  std::string path = temp_path(name);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  return path;
}

// Exit 2 with one line holding `expect`, before the deadline.
void expect_bad_input(const std::vector<std::string>& args, const std::string& expect) {
  std::vector<std::string> argv{placebench_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv, kDeadline_s);
  std::string what = args.size() > 1 ? args[0] + " " + args[1] + " " + args.back() : args[0];
  EXPECT_FALSE(r.timed_out) << what << ": still running at the deadline";
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_NE(r.err.find(expect), std::string::npos) << what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
}

void expect_run_refused(const std::string& config, const std::string& expect) {
  std::string out = temp_path("out");
  expect_bad_input({"run", "--config", config, "--out", out}, expect);
  EXPECT_FALSE(std::filesystem::exists(out + "/trials.jsonl")) << config << ": a trial was measured";
}

const char* kClass = "  - name: a\n    workload: {type: staging, backend: host, bytes: 4K, copies: 1}\n"
                     "    arms: {baseline: local, compare: [unpinned]}\n";

}  // namespace

// Was: /dev/zero read until std::bad_alloc (15-27 s, exit 1); a FIFO blocked forever.
TEST(InputLimitsCli, AConfigThatIsNotARegularFileIsRefusedAtOnce) {
  expect_run_refused("/dev/zero", "placebench: /dev/zero: not a regular file (a character device); give a YAML config");
  expect_run_refused(fifo("config.yaml"), "config.yaml: not a regular file (a FIFO)");
  std::string dir = temp_path("dir.yaml");
  std::filesystem::create_directories(dir);
  expect_run_refused(dir, "dir.yaml: not a regular file (a directory)");
}

TEST(InputLimitsCli, AnIncludeThatIsAFifoIsRefusedAtItsLine) {
  fifo("class.yaml");
  std::string config = write("include.yaml", "classes:\n  - include: class.yaml\n");
  expect_run_refused(config, "include.yaml:2: classes[0].include: ");
  expect_run_refused(config, "class.yaml: not a regular file (a FIFO)");
}

TEST(InputLimitsCli, AConfigOverFourMiBIsRefused) {
  std::string config = write("huge.yaml", std::string("classes:\n") + kClass + std::string(4u << 20, '#') + "\n");
  expect_run_refused(config, "huge.yaml: larger than the 4 MiB placebench reads from such a file");
}

// Was: past 90 s with memory growing (the decision block walked with every alias expanded).
TEST(InputLimitsCli, AnAliasBombIsRefusedFast) {
  std::string config = write("bomb.yaml", std::string("classes:\n") + kClass + "    decision:\n" + alias_bomb("      ", 9));
  expect_run_refused(config, "expands to more than 100000 values (aliases included)");
  std::string inventory = write("bomb-inventory.yaml", "x:\n" + alias_bomb("  ", 9) + "nodes: []\n");
  expect_bad_input({"feasible", "--inventory", inventory}, "bomb-inventory.yaml:");
  std::string reference = write("bomb-reference.yaml", "x:\n" + alias_bomb("  ", 9));
  expect_bad_input({"check", src("tests/fixtures/results/tiny-run"), "--reference", reference},
                   "expands to more than 100000 values");
}

// Was: yaml-cpp's "bad conversion", exit 1.
TEST(InputLimitsCli, AListUsedAsAKeyIsBadInput) {
  std::string config = write("list-key.yaml", std::string("classes:\n") + kClass +
                                                  "    decision:\n      ? [job_length, gpus_per_job]\n      : 1h\n");
  expect_run_refused(config, "list-key.yaml:6: classes[0].decision: a key must be a plain name, not a list or mapping");
  std::string inventory = write("list-key-inventory.yaml", "nodes:\n  - ? [name]\n    : a\n");
  expect_bad_input({"feasible", "--inventory", inventory}, "list-key-inventory.yaml:2: nodes[0]: a key must be a plain name");
}

// Was: nlohmann::json's type_error writing run.json (or feasible's JSON), exit 1.
TEST(InputLimitsCli, TextThatIsNotUtf8IsRefusedAtItsLine) {
  std::string config = write("latin1-class.yaml", "classes:\n  - name: caf\xE9\n" + std::string(kClass).substr(std::string(kClass).find('\n') + 1));
  expect_run_refused(config, "latin1-class.yaml:2: classes[0].name: the value holds bytes that are not UTF-8");
  config = write("latin1-experiment.yaml", std::string("experiment:\n  name: r\xE9sum\xE9\nclasses:\n") + kClass);
  expect_run_refused(config, "latin1-experiment.yaml:2: experiment.name: the value holds bytes that are not UTF-8");
  config = write("latin1-n\xE4me.yaml", std::string("classes:\n") + kClass);  // the experiment's name by default
  expect_run_refused(config, ": the file's name is not UTF-8 (run.json could not record it); rename the file");
  std::string inventory = write("latin1-inventory.yaml", "nodes:\n  - name: n\xF6" "de\n    numa:\n      - {id: 0, gpus: 1, cpus: 4}\n"
                                                         "job: {workers: 1, gpus_per_worker: 1, cpus_per_worker: 1}\n");
  expect_bad_input({"feasible", "--inventory", inventory, "--json"},
                   "latin1-inventory.yaml:2: nodes[0].name: the value holds bytes that are not UTF-8");
}

TEST(InputLimitsCli, EveryOtherInputFileIsReadTheSameWay) {
  std::string pipe = fifo("input.fifo");
  expect_bad_input({"feasible", "--inventory", pipe}, "input.fifo: not a regular file (a FIFO); give --inventory");
  expect_bad_input({"feasible", "--inventory", src("tests/fixtures/decisions/issue-example.yaml"), "--job", pipe},
                   "input.fifo: not a regular file (a FIFO); give --job");
  expect_bad_input({"check", src("tests/fixtures/results/tiny-run"), "--reference", pipe}, "input.fifo: not a regular file (a FIFO)");
  expect_bad_input({"stats", pipe, "/dev/zero"}, "input.fifo: not a regular file (a FIFO)");
  expect_bad_input({"cost", "--from", pipe}, "input.fifo: not a regular file (a FIFO)");
  expect_bad_input({"feasible", "--inventory", "/dev/zero"}, "/dev/zero: not a regular file (a character device)");
}
