// Accepted-looking option values that used to break a promise (issue 15): endless durations, NaN and
// inf numbers, empty strings that silently meant the default, non-decimal or out-of-range integers, sizes
// beyond a limit. Each row: the argv, exit 2, and a regex the one line on stderr must match (it names the
// option). Nothing here runs a measurement: every row is refused before anything is run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "fixtures.h"
#include "placebench/harness/cli/options.h"
#include "run_command.h"

using namespace placebench::testing;

namespace {

namespace fs = std::filesystem;

struct Row {
  std::vector<std::string> args;
  std::string stderr_regex;
};

std::string decisions(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/decisions/" + rel; }

// A what-if decide with one option replaced (or added).
std::vector<std::string> what_if(const std::string& option, const std::string& value) {
  std::vector<std::string> args = {"decide", "--gpus", "8", "--exec-local", "54m", "--exec-remote", "60m",
                                   "--queue", "strict=30m,prefer=10m,any=5m"};
  bool replaced = false;
  for (std::size_t i = 1; i + 1 < args.size(); i += 2)
    if (args[i] == option) args[i + 1] = value, replaced = true;
  if (!replaced) args.insert(args.end(), {option, value});
  return args;
}

// Two small files of numbers for `stats`, in a directory of their own.
class CliValues : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pb-cli-values-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    for (const char* name : {"a.txt", "b.txt"}) std::ofstream(dir_ / name) << "1\n2\n3\n4\n5\n6\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const char* name) const { return (dir_ / name).string(); }

  // Runs each row from the test's directory (so a row that wrongly ran would write nowhere that matters).
  void expect_refused(const std::vector<Row>& rows) const {
    for (const Row& row : rows) {
      std::vector<std::string> argv = {placebench_binary()};
      argv.insert(argv.end(), row.args.begin(), row.args.end());
      std::string shown;
      for (const auto& a : row.args) shown += (a.empty() ? "''" : a) + " ";
      CommandResult r = run_command(argv, 60);
      EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.err;
      EXPECT_TRUE(std::regex_search(r.err, std::regex(row.stderr_regex))) << shown << "\nexpected /" << row.stderr_regex
                                                                          << "/, got: " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << ": not one line: " << r.err;
      EXPECT_EQ(r.err.rfind("placebench", 0), 0u) << shown << ": " << r.err;
    }
  }

  fs::path dir_;
};

}  // namespace

TEST_F(CliValues, DurationsHaveAMaximum) {
  const std::string huge = "99999999999999999999s";
  expect_refused({
      {{"gang", "--deadline", huge}, "--deadline: duration '99999999999999999999s' is longer than the maximum 1h"},
      {{"gang", "--deadline", "2h"}, "--deadline: duration '2h' is longer than the maximum 1h"},
      {{"gang", "--backoff", huge}, "--backoff: duration '99999999999999999999s' is longer than the maximum 10m"},
      {{"gang", "--late", "1", "--late-delay", huge}, "--late-delay: duration '99999999999999999999s' is longer than the maximum 8760h"},
      {what_if("--exec-local", huge), "--exec-local: duration '99999999999999999999s' is longer than the maximum 8760h"},
      {what_if("--exec-remote", "8761h"), "--exec-remote: duration '8761h' is longer than the maximum 8760h"},
      {what_if("--exec-remote-ci", "58m," + huge), "--exec-remote-ci: duration .* longer than the maximum 8760h"},
      {what_if("--queue", "strict=99999999999999999999h,prefer=1m,any=1m"), "--queue strict: duration .* maximum 8760h"},
      {{"cost", "--gpus", "8", "--wait", huge}, "--wait: duration '99999999999999999999s' is longer than the maximum 8760h"},
  });
  // A remote time too short to tell from zero against the local one: its ratio would be -100% (exit 1 before).
  expect_refused({{{"decide", "--gpus", "8", "--exec-local", "8760h", "--exec-remote", "1ns", "--queue",
                    "strict=30m,prefer=10m,any=5m"},
                   "--exec-remote: '1ns' is too short against --exec-local"}});
}

// A decision block's durations have the what-if's maximum: a run directory whose job_length is 20 digits
// of seconds is bad input, not a decision.
TEST_F(CliValues, DecisionBlockDurationsHaveAMaximum) {
  fs::path run = dir_ / "run";
  fs::copy(decisions("run-basic"), run);
  std::ifstream in(run / "run.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  auto at = text.find("\"job_length\": \"54m\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"job_length\": \"54m\"").size(), "\"job_length\": \"99999999999999999999s\"");
  std::ofstream(run / "run.json") << text;
  expect_refused({{{"decide", run.string()},
                   "run.json: config.classes\\[0\\].decision.job_length: duration '99999999999999999999s' is longer "
                   "than the maximum 8760h"}});
}

TEST_F(CliValues, NumbersAreFiniteAndInRange) {
  expect_refused({
      {what_if("--p-remote-any", "nan"), "placebench decide: --p-remote-any: must be a number from 0 to 1, got 'nan'"},
      {what_if("--p-local-prefer", "NaN"), "--p-local-prefer: must be a number from 0 to 1, got 'NaN'"},
      {what_if("--rate", "inf"), "--rate: must be a number from 0 to 1e\\+12, got 'inf'"},
      {what_if("--gpus", "0x8"), "--gpus: must be a whole number from 1 to 2147483647, got '0x8'"},
      {{"stats", file("a.txt"), file("b.txt"), "--confidence", "NaN"},
       "--confidence: must be a number from 0.5 to 0.9999, got 'NaN'"},
      {{"cost", "--gpus", "8", "--wait", "12m", "--rate", "inf"}, "--rate: must be a number from 0 to 1e\\+12, got 'inf'"},
      {{"cost", "--gpus", "inf", "--wait", "12m"}, "--gpus: 'inf' is not a finite number"},
      {{"cost", "--gpus", "1e300", "--wait", "12m"}, "--gpus: must be at most 1e\\+06, got 1e300"},
      {{"cost", "--gpus", "8", "--wait", "12m", "--incidents-per-day", "nan"},
       "--incidents-per-day: must be a number from 0 to 1e\\+06, got 'nan'"},
  });
}

TEST_F(CliValues, ARepeatedQueueKeyIsAnError) {
  expect_refused({{what_if("--queue", "strict=20m,strict=1m,prefer=1m,any=1m"), "--queue: strict is given twice"}});
}

TEST_F(CliValues, EmptyValuesAreErrorsNotTheDefault) {
  expect_refused({
      {{"run", "--resume", ""}, "^placebench run: --resume: empty value; give DIR \\(or drop the option for its default\\)\n"},
      {{"run", "--config", ""}, "^placebench run: --config: empty value; give FILE \\(or drop the option"},
      {{"run", "--out", ""}, "^placebench run: --out: empty value"},
      {{"run", "--rounds", ""}, "^placebench run: --rounds: empty value"},
      {{"topo", "--topology", ""}, "^placebench topo: --topology: empty value"},
      {{"topo", "--export", ""}, "^placebench topo: --export: empty value"},
      {{"plan", "--gpu", ""}, "^placebench plan: --gpu: empty value"},
      {{"plan", "--arms", ""}, "^placebench plan: --arms: empty value"},
      {{"compare", ""}, "^placebench compare: dir: empty value; give DIR\n"},
      {{"report", "-o", "", "x"}, "^placebench report: --output: empty value"},
      {{"stats", file("a.txt"), file("b.txt"), "--confidence", ""}, "--confidence: empty value"},
      {{"cost", "--gpus", "8", "--wait", ""}, "^placebench cost: --wait: empty value"},
      {{"gang", "--deadline", ""}, "^placebench gang: --deadline: empty value"},
  });
}

TEST_F(CliValues, SizesHaveAMaximumAndOneMeaning) {
  const std::string topo = own_topology("2s2n-4gpu.xml");
  expect_refused({
      {{"verify", "--arm", "local", "--bytes", "2T"}, "--bytes: size '2T' is more than the maximum 1T"},
      {{"verify", "--arm", "local", "--bytes", "99999999999999999999"}, "--bytes: size .* more than the maximum 1T"},
      {{"verify", "--arm", "local", "--bytes", "0x10"}, "--bytes: bad size '0x10'"},
      {{"verify", "--arm", "local", "--bytes", "1.5e3"}, "--bytes: bad size '1.5e3'"},
      {{"verify", "--arm", "local", "--bytes", "64Mb"}, "--bytes: bad size '64Mb'.*64MB = 64,000,000 bytes"},
      {{"staging", "--sizes", "4K:2T:x4"}, "--sizes: size '2T' is more than the maximum 1T"},
      {{"pipeline", "--batch-bytes", "99999999999999999999"}, "--batch-bytes: size .* more than the maximum 1T"},
      {{"plan", "--topology", topo, "--workers", "1e3"}, "--workers: must be a whole number"},
  });
}

// verify checks MemAvailable before it allocates, as staging and pipeline do: a buffer above 80% of it
// is refused (exit 2) instead of touched until the process dies.
TEST_F(CliValues, VerifyRefusesABufferAboveMemAvailable) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  unsigned long long kib = 0;
  while (meminfo >> key >> kib && key != "MemAvailable:") meminfo.ignore(256, '\n');
  if (key != "MemAvailable:" || kib == 0) GTEST_SKIP() << "no MemAvailable in /proc/meminfo: verify cannot check it";
  unsigned long long gib = kib / (1024 * 1024) + 1;  // all of it and more
  if (gib > 1024) GTEST_SKIP() << "more than 1 TiB available: the check is above verify's maximum";
  expect_refused({{{"verify", "--arm", "local", "--bytes", std::to_string(gib) + "G"},
                   "--bytes: " + std::to_string(gib) + " GiB is more than 80% of the .* this node has available"}});
}

TEST_F(CliValues, IntegersAreDecimalAndInRange) {
  const std::string topo = own_topology("4n-2gpu.xml");
  expect_refused({
      {{"plan", "--topology", topo, "--cpus-per-worker", "0x2"}, "--cpus-per-worker: must be a whole number from 1 to"},
      {{"plan", "--topology", topo, "--cpus-per-worker", "99999999999"}, "--cpus-per-worker: must be a whole number"},
      {{"plan", "--topology", topo, "--cpus-per-worker", "2abc"}, "--cpus-per-worker: must be a whole number"},
      {{"plan", "--topology", topo, "--gpu", "1e3"}, "--gpu: must be a whole number from 0 to"},
      {{"plan", "--topology", topo, "--gpu=-1"}, "--gpu: must be 0 or more, got -1"},
      {{"plan", "--topology", topo, "--device-numa", "0x1"}, "--device-numa: must be a whole number from 0 to"},
      {{"plan", "--topology", topo, "--remote-node", "0x1"}, "--remote-node: must be a whole number from 0 to"},
      {{"plan", "--topology", topo, "--workers", "99999999999999999999"}, "--workers: must be a whole number"},
      {{"feasible", "--inventory", decisions("cluster-stranded.yaml"), "--search-limit", "99999999999999999999"},
       "--search-limit: must be a whole number from 1 to 1000000000"},
      {{"staging", "--samples", "0x10"}, "--samples: must be a whole number from 1"},
      {{"staging", "--copies=-1"}, "--copies: must be 0 or more, got -1"},
      {{"staging", "--samples", "0"}, "--samples: must be more than 0, got 0"},
      {{"pipeline", "--workers", "0x2"}, "--workers: must be a whole number in decimal, got '0x2'"},
      {{"pipeline", "--steps", "5x"}, "--steps: must be a whole number in decimal"},
  });
}

// The validators themselves: a leading zero is decimal ("010" is 10, where CLI11 alone reads octal 8),
// and an empty value is named as such.
TEST(CliValidators, WholeNumbersAreDecimal) {
  using placebench::harness::whole_number;
  CLI::Validator v = whole_number(0, 100);
  std::string text = "010";
  EXPECT_EQ(v(text), "");
  EXPECT_EQ(text, "10");
  for (std::string bad : {"0x10", "1e3", "101", "-1", " 5", "5 ", "", "1.0", "+3"}) EXPECT_NE(v(bad), "") << bad;
  std::string empty;
  EXPECT_EQ(v(empty).rfind("empty value", 0), 0u);
}

TEST(CliValidators, NumbersAreFinite) {
  using placebench::harness::number_in;
  using placebench::harness::positive_number;
  for (std::string bad : {"nan", "inf", "-inf", "NaN", "1e999", "", "0.5x"}) {
    std::string a = bad, b = bad;
    EXPECT_NE(number_in(0, 1)(a), "") << bad;
    EXPECT_NE(positive_number()(b), "") << bad;
  }
  std::string ok = "0.25";
  EXPECT_EQ(number_in(0, 1)(ok), "");
  EXPECT_EQ(number_in(0.5, 0.9999).get_description(), "FLOAT in [0.5 - 0.9999]");  // CLI::Range's help text
}
