// `check --against-history` against the node's peers in the store (issue 31): the other nodes' most recent
// complete runs of the same config, their median and robust spread. A node that has always been 30% slower
// than its peers passes against its own history and fails against them (exit 3, the failed comparison
// named); a node like its peers passes both; too few peers make the peer checks unknown (UNKNOWN, exit 3,
// never PASS); --min-peers 0 leaves the peers out; --min-peers without a store is exit 2.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "fleet_fixtures.h"
#include "run_command.h"

using namespace placebench::testing;
namespace fs = std::filesystem;

namespace {

std::string fresh(const std::string& name) {
  std::string path = ::testing::TempDir() + "/pb-check-peers-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(path);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  return path;
}

CommandResult pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args, 120);
}

// `runs` runs of `host` under root/host/run-R (one a day from first_day, a little noise), step times x `slowdown`.
void node_runs(const std::string& root, const std::string& host, int runs, double slowdown, int seed, int first_day = 1) {
  for (int r = 0; r < runs; ++r) {
    SyntheticNode node{host};
    node.rounds = 3;
    node.steps = 8;
    node.slowdown = slowdown * (1 + 0.004 * ((r * 7 + seed) % 5 - 2));
    node.start_time = fmt::format("2026-12-{:02}T10:00:00Z", first_day + r);
    write_synthetic_node(fmt::format("{}/{}/run-{}", root, host, r), node);
  }
}

// One line of the table per check: "  RESULT CHECK ..."; the lines of `out` whose check contains `name`.
std::vector<std::string> rows_of(const std::string& out, const std::string& name) {
  std::vector<std::string> rows;
  std::size_t at = 0;
  while (at < out.size()) {
    std::size_t end = out.find('\n', at);
    std::string line = out.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.find(name) != std::string::npos && line.rfind("  ", 0) == 0 && line.rfind("   ", 0) != 0) rows.push_back(line);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return rows;
}

bool all_start_with(const std::vector<std::string>& rows, const std::string& word) {
  return !rows.empty() && std::all_of(rows.begin(), rows.end(), [&](const std::string& r) { return r.rfind("  " + word + " ", 0) == 0; });
}

}  // namespace

TEST(CheckPeersCli, ASlowNodePassesItsOwnHistoryAndFailsItsPeers) {
  const std::string root = fresh("fleet"), db = fresh("fleet.db");
  node_runs(root, "gpu-01", 2, 1.0, 1);
  node_runs(root, "gpu-02", 7, 1.0, 2);
  node_runs(root, "gpu-03", 2, 1.0, 3);
  node_runs(root, "gpu-04", 1, 1.0, 4);
  node_runs(root, "gpu-05", 7, 1.3, 0);  // always 30% slower: stable against itself
  ASSERT_EQ(pb({"history", "add", db, root}).exit_code, 0);

  auto slow = pb({"check", root + "/gpu-05/run-6", "--against-history", db});
  EXPECT_EQ(slow.exit_code, 3) << slow.out << slow.err;
  EXPECT_TRUE(all_start_with(rows_of(slow.out, " vs history"), "pass")) << slow.out;
  EXPECT_TRUE(all_start_with(rows_of(slow.out, " median vs peers"), "FAIL")) << slow.out;
  EXPECT_NE(slow.out.find("against its peers: "), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("worse than the median of 4 other nodes' latest runs (> 10% and"), std::string::npos) << slow.out;
  EXPECT_EQ(slow.out.find("against its own past"), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("over 4 peers)"), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("\nFAIL: "), std::string::npos) << slow.out;

  auto like = pb({"check", root + "/gpu-02/run-6", "--against-history", db});
  EXPECT_EQ(like.exit_code, 0) << like.out << like.err;
  EXPECT_TRUE(all_start_with(rows_of(like.out, " vs peers"), "pass")) << like.out;
  EXPECT_NE(like.out.find("PASS: "), std::string::npos) << like.out;
}

TEST(CheckPeersCli, TooFewPeersAreUnknownNeverAPass) {
  const std::string root = fresh("pair"), db = fresh("pair.db");
  node_runs(root, "gpu-01", 1, 1.0, 1, 5);  // one run, on day 5
  node_runs(root, "gpu-02", 7, 1.0, 2);
  ASSERT_EQ(pb({"history", "add", db, root}).exit_code, 0);
  auto r = pb({"check", root + "/gpu-02/run-6", "--against-history", db});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(all_start_with(rows_of(r.out, " vs history"), "pass")) << r.out;
  EXPECT_TRUE(all_start_with(rows_of(r.out, " vs peers"), "unknown")) << r.out;
  EXPECT_NE(r.out.find("cannot tell: 1 peer with this figure in the store, 3 needed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
  // Its own history alone, asked for: no peer checks, PASS.
  auto own = pb({"check", root + "/gpu-02/run-6", "--against-history", db, "--min-peers", "0"});
  EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
  EXPECT_TRUE(rows_of(own.out, " vs peers").empty()) << own.out;
  EXPECT_NE(own.out.find("PASS: "), std::string::npos) << own.out;
  // A peer's run that started after the checked run is no baseline of it.
  auto one = pb({"check", root + "/gpu-02/run-6", "--against-history", db, "--min-peers", "1"});
  EXPECT_TRUE(all_start_with(rows_of(one.out, " vs peers"), "pass")) << one.out;
  EXPECT_NE(one.out.find("over 1 peer)"), std::string::npos) << one.out;
  auto before = pb({"check", root + "/gpu-02/run-0", "--against-history", db, "--min-peers", "1"});
  EXPECT_TRUE(all_start_with(rows_of(before.out, " vs peers"), "unknown")) << before.out;
  EXPECT_NE(before.out.find("cannot tell: 0 peers"), std::string::npos) << before.out;
}

TEST(CheckPeersCli, MinPeersNeedsAStore) {
  auto r = pb({"check", "somewhere", "--reference", "ref.yaml", "--min-peers", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--min-peers: only with --against-history"), std::string::npos) << r.err;
}
