// `placebench check` on a GPU node check's summary (tests/fixtures/gpu-node-check-summaries) against the
// shipped node references configs/references/h100.yaml and h200.yaml: one reader of reference files for
// runs and node checks (issue 16). Exit 0 / 3 / 2 as for runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"

using namespace placebench::testing;

namespace {

std::string src(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/" + rel; }
std::string summary_dir(const std::string& which) { return src("tests/fixtures/gpu-node-check-summaries/" + which); }
std::string node_ref(const std::string& node) { return src("configs/references/" + node + ".yaml"); }

CommandResult check(const std::string& dir, const std::string& reference) {
  return run_command({placebench_binary(), "check", dir, "--reference", reference});
}

}  // namespace

TEST(NodeCheckCli, H100AndH200ReferencesPassAGoodNode) {
  for (const char* node : {"h100", "h200"}) {
    auto r = check(summary_dir("pass"), node_ref(node));
    ASSERT_EQ(r.exit_code, 0) << node << "\n" << r.out << r.err;
    // The steps, H2D and D2H for the one GPU, the all-reduce busbw.
    EXPECT_NE(r.out.find("PASS: 4 of 4 checks passed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("staging_h2d_pinned_gbps gpu0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nccl_allreduce_busbw_gbps node"), std::string::npos) << r.out;
  }
  // The summary file itself is accepted as well as its directory.
  EXPECT_EQ(check(summary_dir("pass") + "/summary.json", node_ref("h200")).exit_code, 0);
}

TEST(NodeCheckCli, H2DAndBusbwBelowTheMinimumsFailWithTheFigures) {
  for (const char* node : {"h100", "h200"}) {
    auto r = check(summary_dir("fail"), node_ref(node));
    ASSERT_EQ(r.exit_code, 3) << node << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("FAIL: 2 of 4 checks failed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("gpu0: staging_h2d_pinned_gbps is 40 GB/s, below the minimum 48 GB/s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("node: nccl_allreduce_busbw_gbps is 420 GB/s"), std::string::npos) << r.out;
  }
}

TEST(NodeCheckCli, MissingFiguresAndFailedStepsFail) {
  std::string d = ::testing::TempDir() + "/pb-node-check-empty";
  std::filesystem::create_directories(d);
  std::ofstream(d + "/summary.json") << R"({"kind": "gpu-node-check", "schema_version": 1, "gpus": {},
    "collective": null, "failed_steps": ["gpus"], "steps": []})";
  auto r = check(d, node_ref("h200"));
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("has no staging_h2d_pinned_gbps figure"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a step of the node check failed"), std::string::npos) << r.out;
}

// The summary's typed reader (node_check_summary.cpp): a key of the wrong type or another schema version is
// exit 2, one line naming the file and the key (before: read as a missing figure, or nlohmann's text).
TEST(NodeCheckCli, DamagedSummaryKeysAreExitTwoNamingTheKey) {
  std::string d = ::testing::TempDir() + "/pb-node-check-damaged";
  std::filesystem::create_directories(d);
  std::ofstream(d + "/summary.json") << R"({"kind": "gpu-node-check", "schema_version": 1,
    "gpus": {"0": {"staging": {"h2d_pinned": {"local": {"gbps_median": "fast"}}}}}})";
  auto r = check(d, node_ref("h200"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("summary.json: gpus.0.staging.h2d_pinned.local.gbps_median: expected a number or null"),
            std::string::npos) << r.err;
  std::ofstream(d + "/summary.json") << R"({"kind": "gpu-node-check", "schema_version": 2})";
  r = check(d, node_ref("h200"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("summary.json: schema_version: 2 is not 1"), std::string::npos) << r.err;
}

TEST(NodeCheckCli, RunAndNodeReferencesAreNotMixedUp) {
  auto r = check(src("tests/fixtures/results/tiny-run"), node_ref("h100"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("has node_checks:"), std::string::npos) << r.err;
  r = check(summary_dir("pass"), src("tests/fixtures/references/tiny-pass.yaml"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("has no node_checks:"), std::string::npos) << r.err;
}

TEST(NodeCheckCli, BadNodeCheckEntryIsExitTwoNamingTheKey) {
  std::string f = ::testing::TempDir() + "/pb-node-ref-bad.yaml";
  std::ofstream(f) << "node_checks:\n  - {metric: staging_h2d_gbps, min: 48, unit: GB/s}\n";
  auto r = check(summary_dir("pass"), f);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("node_checks[0].metric"), std::string::npos) << r.err;
}
