// A class that never starts under a policy, end to end (issue 28, "never is not zero"): `queue` says
// "never started (N of M)" and writes null, and `decide --queue-from` takes that policy's queue time as
// infinite, so it never recommends it (before: queue_mean_s 0.0, read as an instant start).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

CommandResult run_pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args);
}

}  // namespace

TEST(QueueCli, NeverStartedIsNeverRecommended) {
  fs::path dir = fs::temp_directory_path() / ("pb-queue-never-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // 4-GPU workers on the article's cluster (2 GPUs per NUMA node): strict places none of them.
  const std::string mix = (dir / "wide.yaml").string(), out = (dir / "replay.json").string();
  write_text_file(mix, "seed: 5\nhorizon: 12h\nclasses:\n  - {name: wide, arrivals_per_hour: 1, gpus_per_worker: 4, duration: 1h, "
                       "duration_remote: 80m}\n");
  auto q = run_pb({"queue", "--inventory", std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/queue/article-cluster.yaml",
                   "--mix", mix, "--out", out});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_NE(q.out.find("class wide\n"), std::string::npos) << q.out;
  const std::size_t row = q.out.find("  strict/gang/binpack ");
  ASSERT_NE(row, std::string::npos) << q.out;
  EXPECT_NE(q.out.substr(row, q.out.find('\n', row) - row).find("never started ("), std::string::npos) << q.out;
  json replay = json::parse(read_text_file(out));
  const json& strict = replay["combinations"][0]["classes"][0];
  EXPECT_EQ(replay["combinations"][0]["name"], "strict/gang/binpack");
  EXPECT_EQ(strict["started"], 0);
  EXPECT_TRUE(strict["queue_mean_s"].is_null()) << strict.dump();
  auto d = run_pb({"decide", "--gpus", "4", "--exec-local", "60m", "--exec-remote", "80m", "--queue-from", out, "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  json j = json::parse(d.out);
  const json& cls = j["classes"][0];
  EXPECT_NE(cls["recommendation"], "strict") << cls.dump(2);
  EXPECT_TRUE(cls["inputs"]["queue_min"]["strict"].is_null()) << cls["inputs"].dump();
  EXPECT_TRUE(cls["policies"][0]["turnaround_min"].is_null()) << cls["policies"][0].dump();
  auto text = run_pb({"decide", "--gpus", "4", "--exec-local", "60m", "--exec-remote", "80m", "--queue-from", out});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("never"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("inf"), std::string::npos) << text.out;
  fs::remove_all(dir);
}
