// `placebench check --init-reference RUN... --out FILE` end to end: the file it writes is one that
// `check --reference` accepts and passes on the runs it came from, fails on a node 30% slower, and
// nothing is overwritten; interrupted runs are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "fleet_fixtures.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/pb-initref-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string node_run(const std::string& dir, const std::string& host, double slowdown = 1.0) {
  SyntheticNode n{host};
  n.slowdown = slowdown;
  write_synthetic_node(dir + "/" + host, n);
  return dir + "/" + host;
}

CommandResult check(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {placebench_binary(), "check"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, 60);
}

}  // namespace

TEST(FleetReferenceCli, AReferenceFromGoodRunsPassesThemAndFailsASlowNode) {
  std::string dir = scratch("roundtrip"), ref = dir + "/refs.yaml";
  std::vector<std::string> good = {node_run(dir, "a"), node_run(dir, "b"), node_run(dir, "c")};
  auto r = check({"--init-reference", good[0], good[1], good[2], "--out", ref});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + ref + ": 4 references, 2 expectations from 3 run(s)\n");
  std::string yaml = read_text_file(ref);
  EXPECT_NE(yaml.find("metric: trials.median_ns"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("#   " + good[1] + "\n"), std::string::npos) << yaml;
  for (const std::string& run : good) {
    auto c = check({run, "--reference", ref});
    EXPECT_EQ(c.exit_code, 0) << run << "\n" << c.out << c.err;
  }
  auto slow = check({node_run(dir, "slow", 1.3), "--reference", ref});
  EXPECT_EQ(slow.exit_code, 3) << slow.out;
  EXPECT_NE(slow.out.find("above the reference"), std::string::npos) << slow.out;
  // The fleet view checks every node against it too: the slow node's failed checks are among its reasons,
  // and each check is a metric.
  std::string prom = dir + "/fleet.prom";
  auto f = run_command({placebench_binary(), "fleet", good[0], good[1], good[2], dir + "/slow", "--reference", ref,
                        "--prometheus", prom}, 60);
  EXPECT_EQ(f.exit_code, 1) << f.err;
  EXPECT_NE(f.out.find("- check 'staging-gpu0/local trials.median_ns' failed: trials.median_ns = "), std::string::npos) << f.out;
  std::string metrics = read_text_file(prom);
  EXPECT_NE(metrics.find("placebench_check_passed{host=\"slow\",class=\"staging-gpu0\",check=\"staging-gpu0/local trials.median_ns\"} 0\n"),
            std::string::npos) << metrics;
  EXPECT_NE(metrics.find("placebench_check_passed{host=\"a\",class=\"staging-gpu0\",check=\"staging-gpu0/local trials.median_ns\"} 1\n"),
            std::string::npos) << metrics;
}

TEST(FleetReferenceCli, TheBandIsAtLeastTheFloorAndHoldsEveryRunsCi) {
  std::string dir = scratch("band"), ref = dir + "/refs.yaml";
  std::string run = node_run(dir, "a");
  ASSERT_EQ(check({"--init-reference", run, "--out", ref, "--min-tolerance", "7"}).exit_code, 0);
  std::string yaml = read_text_file(ref);
  EXPECT_NE(yaml.find("lower: -0.070, upper: 0.070"), std::string::npos) << yaml;
}

TEST(FleetReferenceCli, NothingIsOverwrittenAndBadUsesAreExitTwo) {
  std::string dir = scratch("refuse"), ref = dir + "/refs.yaml";
  std::string run = node_run(dir, "a");
  write_text_file(ref, "kept\n");
  auto r = check({"--init-reference", run, "--out", ref});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "placebench: --out " + ref + ": already exists; placebench does not replace a result file unless asked; "
                   "give a new file name, or --force to replace it\n");
  EXPECT_EQ(read_text_file(ref), "kept\n");
  auto forced = check({"--init-reference", run, "--out", ref, "--force"});  // asked: replaced
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(read_text_file(ref), "kept\n");
  EXPECT_EQ(check({"--init-reference", run}).exit_code, 2);
  EXPECT_EQ(check({run}).exit_code, 2);
  // An interrupted run (summary.json says complete: false) is no known-good run.
  auto summary = nlohmann::json::parse(read_text_file(run + "/summary.json"));
  ASSERT_EQ(summary["complete"], true);
  summary["complete"] = false;
  write_text_file(run + "/summary.json", summary.dump());
  r = check({"--init-reference", run, "--out", dir + "/other.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the run is not complete"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/other.yaml"));
}
