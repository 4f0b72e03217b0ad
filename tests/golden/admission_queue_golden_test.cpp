// Golden outputs of `placebench admission` (render_admission_table, admission_to_json) on the three kubectl
// fixtures of docs/admission.md, and of `placebench queue` (render_queue_table) on the article's cluster.
// The JSON's host, time and version lines are placeholders; everything else is deterministic.
#include <gtest/gtest.h>

#include "golden.h"
#include "run_command.h"

using namespace placebench::testing;
using placebench::golden::matches_golden;

namespace {

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/" + rel; }

void expect_golden_output(std::vector<std::string> args, const std::string& golden) {
  args.insert(args.begin(), placebench_binary());
  CommandResult r = run_command(args);
  ASSERT_EQ(r.exit_code, 0) << golden << "\n" << r.err;
  EXPECT_TRUE(matches_golden(r.out, "cli/" + golden));
}

}  // namespace

TEST(GoldenAdmission, ThreeCasesTable) {
  expect_golden_output({"admission", fixture("admission/admitted-whole"), "--gang", fixture("admission/admitted-whole-gang.json")},
                       "admission-admitted-whole.txt");
  expect_golden_output({"admission", fixture("admission/partial-waiting")}, "admission-partial-waiting.txt");
  expect_golden_output({"admission", fixture("admission/never-ready")}, "admission-never-ready.txt");
}

// #28: a minimum below the pod count, a restarted Volcano gang (two attempts), two Kueue pod groups.
TEST(GoldenAdmission, GangSemanticsTable) {
  expect_golden_output({"admission", fixture("admission/min-below-pods")}, "admission-min-below-pods.txt");
  expect_golden_output({"admission", fixture("admission/volcano-restart")}, "admission-volcano-restart.txt");
  expect_golden_output({"admission", fixture("admission/kueue-two-groups")}, "admission-kueue-two-groups.txt");
}

TEST(GoldenAdmission, Json) {
  expect_golden_output({"admission", fixture("admission/never-ready"), "--json"}, "admission-never-ready.json");
}

TEST(GoldenQueue, ArticleClusterTable) {
  expect_golden_output({"queue", "--inventory", fixture("queue/article-cluster-fragmented.yaml"), "--mix", fixture("queue/pairs-mix.yaml")},
                       "queue-article-fragmented.txt");
}
