// Golden outputs of `placebench admission` (render_admission_table, admission_to_json) on the three kubectl
// fixtures of docs/admission.md, and of `placebench queue` (render_queue_table) on the article's cluster.
// The JSON's host, time and version lines are placeholders; everything else is deterministic.
#include <gtest/gtest.h>

#include "cli_golden.h"

using namespace placebench::golden;

TEST(GoldenAdmission, ThreeCasesTable) {
  expect_cli_golden({"admission", fixture("admission/admitted-whole"), "--gang", fixture("admission/admitted-whole-gang.json")}, 0,
                    "admission-admitted-whole.txt");
  expect_cli_golden({"admission", fixture("admission/partial-waiting")}, 0, "admission-partial-waiting.txt");
  expect_cli_golden({"admission", fixture("admission/never-ready")}, 0, "admission-never-ready.txt");
}

// #28: a minimum below the pod count, a restarted Volcano gang (two attempts), two Kueue pod groups.
TEST(GoldenAdmission, GangSemanticsTable) {
  expect_cli_golden({"admission", fixture("admission/min-below-pods")}, 0, "admission-min-below-pods.txt");
  expect_cli_golden({"admission", fixture("admission/volcano-restart")}, 0, "admission-volcano-restart.txt");
  expect_cli_golden({"admission", fixture("admission/kueue-two-groups")}, 0, "admission-kueue-two-groups.txt");
}

TEST(GoldenAdmission, Json) {
  expect_cli_golden({"admission", fixture("admission/never-ready"), "--json"}, 0, "admission-never-ready.json");
}

TEST(GoldenQueue, ArticleClusterTable) {
  expect_cli_golden({"queue", "--inventory", fixture("queue/article-cluster-fragmented.yaml"), "--mix", fixture("queue/pairs-mix.yaml")}, 0,
                    "queue-article-fragmented.txt");
  expect_cli_golden({"queue", "--inventory", fixture("queue/article-cluster-fragmented.yaml"), "--mix", fixture("queue/pairs-mix.yaml"),
                     "--wide"}, 0, "queue-article-fragmented-wide.txt");
}
