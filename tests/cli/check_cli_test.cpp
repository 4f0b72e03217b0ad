// `placebench check` end to end on the committed run fixture (tests/fixtures/results/tiny-run) and the
// reference files in tests/fixtures/references: exit 0 / 3 / 2, JUnit XML and Markdown outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;

namespace {

std::string src(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/" + rel; }
std::string run_dir() { return src("tests/fixtures/results/tiny-run"); }
std::string ref(const std::string& name) { return src("tests/fixtures/references/" + name); }

std::string out_path(const std::string& name) {
  std::string p = ::testing::TempDir() + "/pb-check-" + name;
  std::filesystem::remove(p);
  return p;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST(CheckCli, PassingReferencesExitZeroWithJUnitAndMarkdown) {
  std::string junit = out_path("pass.xml"), md = out_path("pass.md");
  auto r = run_command({placebench_binary(), "check", run_dir(), "--reference", ref("tiny-pass.yaml"), "--junit", junit,
                        "--markdown", md});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS: 6 of 6 checks passed"), std::string::npos) << r.out;
  std::string xml = read_text_file(junit);
  EXPECT_EQ(count(xml, "<testcase "), 6) << xml;
  EXPECT_EQ(count(xml, "<failure"), 0);
  EXPECT_NE(xml.find("tests=\"6\" failures=\"0\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"tiny/local median\""), std::string::npos);
  std::string summary = read_text_file(md);
  EXPECT_EQ(summary.rfind("### placebench check: PASS (6 of 6 checks)", 0), 0u) << summary;
}

TEST(CheckCli, FailingReferencesExitThreeAndSayWhy) {
  std::string junit = out_path("fail.xml"), md = out_path("fail.md");
  auto r = run_command({placebench_binary(), "check", run_dir(), "--reference", ref("tiny-fail.yaml"), "--junit", junit,
                        "--markdown", md});
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL: 3 of 4 checks failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is above the reference"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("class 'missing-class' is not in the run (classes: tiny)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("got verdict 'inconclusive', not one of the allowed"), std::string::npos) << r.out;
  std::string xml = read_text_file(junit);
  EXPECT_EQ(count(xml, "<testcase "), 4);
  EXPECT_EQ(count(xml, "<failure "), 3);
  EXPECT_NE(read_text_file(md).find("**FAIL**"), std::string::npos);
}

TEST(CheckCli, BadReferenceIsExitTwoNamingFileLineAndKey) {
  auto r = run_command({placebench_binary(), "check", run_dir(), "--reference", ref("bad-unknown-key.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad-unknown-key.yaml:5: references[0].tolerance: unknown key; accepted keys: name, class, arm, "
                       "metric, target, lower, upper, unit"),
            std::string::npos)
      << r.err;
  r = run_command({placebench_binary(), "check", run_dir(), "--reference", ref("bad-unit.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad-unit.yaml:9: references[0].unit: 'GB/s' is not a time unit for median"), std::string::npos) << r.err;
  EXPECT_EQ(count(r.err, "\n"), 1) << r.err;  // one line
}

TEST(CheckCli, BadRunDirectoryOrOptionsAreExitTwo) {
  auto r = run_command({placebench_binary(), "check", src("tests/fixtures/results/nope"), "--reference", ref("tiny-pass.yaml")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_command({placebench_binary(), "check", run_dir()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--reference is required"), std::string::npos) << r.err;
  r = run_command({placebench_binary(), "check", run_dir(), "--reference", ref("tiny-pass.yaml"), "--junit",
                   "/nonexistent-dir/x.xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--junit /nonexistent-dir/x.xml: /nonexistent-dir is not a writable directory"), std::string::npos) << r.err;
}

TEST(CheckCli, InterruptedRunFailsTheCompletenessCheck) {
  std::string dir = ::testing::TempDir() + "/pb-check-interrupted";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* f : {"run.json", "trials.jsonl"}) std::filesystem::copy_file(run_dir() + "/" + f, dir + "/" + f);
  auto r = run_command({placebench_binary(), "check", dir, "--reference", ref("tiny-pass.yaml")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL   run complete"), std::string::npos) << r.out;
}

TEST(CheckCli, ADegenerateArmNeverPassesACheck) {
  // mixed-run's remote ran on the device's own node: every check of it fails and says why, even those
  // its numbers would meet (a wide margin, every verdict allowed); the realised unpinned still passes.
  auto r = run_command({placebench_binary(), "check", src("tests/fixtures/results/mixed-run"), "--reference",
                        ref("mixed-control.yaml")});
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL: 3 of 5 checks failed"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "was not measured under its own placement"), 3) << r.out;
  EXPECT_NE(r.out.find("A/A control (degenerate)"), std::string::npos) << r.out;
}
