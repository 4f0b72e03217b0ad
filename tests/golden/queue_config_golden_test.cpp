// Golden outputs of `placebench queue --json` (queue_replay_to_json; admission_queue_golden_test.cpp has
// the table) on the article's cluster, and of the config JSON printer (config_to_json): the resolved
// experiment a run records in run.json's `config`, which no command prints on its own. The run is a real
// `placebench run` of a committed config with its rounds cut to 2:2 (well under a second); only the
// config object is compared (the rest of run.json names this machine, its topology and the time). The
// queue JSON's evidence stamp is the only placeholder.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_golden.h"

using namespace placebench::testing;
using namespace placebench::golden;

TEST(GoldenQueue, ArticleClusterJson) {
  expect_cli_golden({"queue", "--inventory", fixture("queue/article-cluster-fragmented.yaml"), "--mix",
                     fixture("queue/pairs-mix.yaml"), "--json"},
                    0, "queue-article-fragmented.json");
}

namespace {

// `run --config CONFIG --rounds 2:2 --seed 11` into a fresh directory; run.json's config, as dump(2) prints it.
void expect_config_golden(const std::string& config, const std::string& golden) {
  std::string out = temp_dir("config-" + golden) + "/run";
  CommandResult r = run_command({placebench_binary(), "run", "--config", fixture(config), "--rounds", "2:2", "--seed", "11",
                                 "--out", out}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json run = nlohmann::json::parse(read_text(out + "/run.json"), nullptr, false);
  ASSERT_FALSE(run.is_discarded() || !run.contains("config")) << read_text(out + "/run.json");
  EXPECT_TRUE(matches_golden(run["config"].dump(2) + "\n", "cli/" + golden));
}

}  // namespace

// One staging class, every default filled in (looks, confidence, order, memory, direction).
TEST(GoldenConfig, TinyResolved) { expect_config_golden("configs/tiny.yaml", "config-tiny.json"); }

// A staging class with a decision block and a pipeline class with a throughput statistic.
TEST(GoldenConfig, MixedResolved) { expect_config_golden("results/mixed.yaml", "config-mixed.json"); }
