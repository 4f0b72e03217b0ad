// `placebench queue` end to end on the article's cluster, and `decide --queue-from` giving the same
// recommendation as the same queue times typed by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/queue/" + rel; }

CommandResult run_pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args);
}

const json& class_in(const json& replay, const std::string& combination) {
  for (const auto& c : replay["combinations"])
    if (c["name"] == combination) return c["classes"][0];
  throw std::runtime_error("no " + combination);
}

}  // namespace

TEST(QueueCli, ReplayFeedsDecideAsTypedByHand) {
  fs::path dir = fs::temp_directory_path() / ("pb-queue-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string out = (dir / "replay.json").string();
  auto r = run_pb({"queue", "--inventory", fixture("article-cluster-fragmented.yaml"), "--mix", fixture("pairs-mix.yaml"), "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("strict/gang/binpack"), std::string::npos);
  json replay = json::parse(read_text_file(out));
  EXPECT_EQ(replay["schema_version"], 1);
  EXPECT_TRUE(replay.contains("host") && replay.contains("generated_at") && replay.contains("placebench_version"));
  EXPECT_EQ(replay["mix"]["seed"], 7);
  const json& strict = class_in(replay, "strict/gang/binpack");
  const json& any = class_in(replay, "any/gang/binpack");
  EXPECT_GT(strict["queue_mean_s"].get<double>(), any["queue_mean_s"].get<double>());  // the longer queue
  EXPECT_LT(strict["exec_mean_s"].get<double>(), any["exec_mean_s"].get<double>());    // the shorter execution

  const std::vector<std::string> base = {"decide", "--gpus", "2", "--exec-local", "60m", "--exec-remote", "72m", "--json"};
  auto from_replay = base;
  from_replay.insert(from_replay.end(), {"--queue-from", out});
  auto by_hand = base;
  by_hand.insert(by_hand.end(), {"--queue", fmt::format("strict={:.17g}s,prefer={:.17g}s,any={:.17g}s", strict["queue_mean_s"].get<double>(),
                                                        class_in(replay, "prefer/gang/binpack")["queue_mean_s"].get<double>(),
                                                        any["queue_mean_s"].get<double>())});
  auto a = run_pb(from_replay), b = run_pb(by_hand);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  json ja = json::parse(a.out), jb = json::parse(b.out);
  EXPECT_EQ(ja["classes"][0]["recommendation"], jb["classes"][0]["recommendation"]);
  EXPECT_EQ(ja["classes"][0]["recommendation"], "prefer");
  EXPECT_EQ(ja["classes"], jb["classes"]);

  auto both = run_pb({"decide", "--gpus", "2", "--exec-local", "60m", "--exec-remote", "72m", "--queue", "strict=1m,prefer=1m,any=1m",
                      "--queue-from", out});
  EXPECT_EQ(both.exit_code, 2);
  auto again = run_pb({"queue", "--inventory", fixture("article-cluster-fragmented.yaml"), "--mix", fixture("pairs-mix.yaml"), "--out", out});
  EXPECT_EQ(again.exit_code, 2);  // the recorded replay is not overwritten
  fs::remove_all(dir);
}

TEST(QueueCli, BadInputIsOneLineAndExitTwo) {
  auto r = run_pb({"queue", "--inventory", fixture("article-cluster.yaml"), "--mix", fixture("article-cluster.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("article-cluster.yaml:"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  auto bad = run_pb({"decide", "--gpus", "2", "--exec-local", "60m", "--exec-remote", "72m", "--queue-from", std::string(PLACEBENCH_SOURCE_DIR) + "/configs/queue/job-mix.yaml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not JSON"), std::string::npos) << bad.err;
}

TEST(QueueCli, ExampleMixRunsOnTheArticleCluster) {
  auto r = run_pb({"queue", "--inventory", fixture("article-cluster.yaml"), "--mix", std::string(PLACEBENCH_SOURCE_DIR) + "/configs/queue/job-mix.yaml", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["combinations"].size(), 12u);
  EXPECT_EQ(j["combinations"][0]["classes"].size(), 3u);
}
