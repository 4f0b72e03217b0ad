// Golden outputs of the real placebench on the committed fixtures: compare, decide, check (table, JUnit
// XML, Markdown), cost, feasible and topo, each as table and JSON where it has both. The inputs are
// fixed, so the outputs must match tests/golden/cli/ exactly; only --version, which names this
// machine's libraries, has placeholders. Fixture paths are passed absolute and the checkout's path is
// normalised to {{SOURCE_DIR}} by the comparison (golden.h), so the goldens hold wherever the tree is.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_golden.h"

using namespace placebench::golden;

// ---- compare: the verdict table and summary.json's form (render_analysis_table, summary_to_json) ----

TEST(GoldenCli, CompareTinyRun) {
  expect_cli_golden({"compare", fixture("results/tiny-run")}, 0, "compare-tiny-run.txt");
  expect_cli_golden({"compare", fixture("results/tiny-run"), "--json"}, 0, "compare-tiny-run.json");
}

TEST(GoldenCli, CompareMixedRun) {
  expect_cli_golden({"compare", fixture("results/mixed-run")}, 0, "compare-mixed-run.txt");
  expect_cli_golden({"compare", fixture("results/mixed-run"), "--json"}, 0, "compare-mixed-run.json");
  // --wide: every column, as the table was before it fitted 100 columns.
  expect_cli_golden({"compare", fixture("results/mixed-run"), "--wide"}, 0, "compare-mixed-run-wide.txt");
}

// A run stopped part-way (a copy of tiny-run with its first trials only and no summary.json): the table
// says the statistics are of the trials so far.
TEST(GoldenCli, CompareIncompleteRun) {
  std::string dir = temp_dir("incomplete");
  std::filesystem::copy_file(fixture("results/tiny-run/run.json"), dir + "/run.json");
  std::istringstream all(read_text(fixture("results/tiny-run/trials.jsonl")));
  std::ofstream first_trials(dir + "/trials.jsonl");
  int kept = 0;
  for (std::string line; kept < 4 && std::getline(all, line); ++kept) first_trials << line << "\n";
  first_trials.close();
  ASSERT_EQ(kept, 4) << "tiny-run has fewer than 4 trials";
  Substitutions tmp{{dir, "{{TMP}}"}};
  expect_cli_golden({"compare", dir}, 0, "compare-incomplete-run.txt", tmp);
  expect_cli_golden({"compare", dir, "--json"}, 0, "compare-incomplete-run.json", tmp);
}

// ---- decide: from a run directory and what-if (render_decide_table, decide_to_json) ---------------

TEST(GoldenCli, DecideRunBasic) {
  expect_cli_golden({"decide", fixture("decisions/run-basic")}, 0, "decide-run-basic.txt");
  expect_cli_golden({"decide", fixture("decisions/run-basic"), "--json"}, 0, "decide-run-basic.json");
  expect_cli_golden({"decide", fixture("decisions/run-basic"), "--wide"}, 0, "decide-run-basic-wide.txt");
}

TEST(GoldenCli, DecideWhatIf) {
  std::vector<std::string> what_if = {"decide", "--gpus", "8", "--exec-local", "54m", "--exec-remote", "60m",
                                      "--queue", "strict=30m,prefer=10m,any=5m", "--rate", "2.5",
                                      "--objective", "turnaround", "--exec-remote-ci", "58.32m,61.83m"};
  expect_cli_golden(what_if, 0, "decide-what-if.txt");
  what_if.push_back("--json");
  expect_cli_golden(what_if, 0, "decide-what-if.json");
}

// ---- check: table on stdout, --junit and --markdown files (render_check_table, render_junit_xml,
// render_markdown) --------------------------------------------------------------------------------

namespace {

void expect_check_goldens(const std::string& run, const std::string& reference, int exit_code, const std::string& name) {
  std::string dir = temp_dir("check-" + name);
  std::string junit = dir + "/check.xml", markdown = dir + "/check.md";
  Substitutions tmp{{dir, "{{TMP}}"}};
  expect_cli_golden({"check", fixture(run), "--reference", fixture("references/" + reference), "--junit", junit,
                     "--markdown", markdown},
                    exit_code, "check-" + name + ".txt", tmp);
  EXPECT_TRUE(matches_golden(read_text(junit), "cli/check-" + name + ".xml", tmp));
  EXPECT_TRUE(matches_golden(read_text(markdown), "cli/check-" + name + ".md", tmp));
}

}  // namespace

TEST(GoldenCli, CheckTinyPass) { expect_check_goldens("results/tiny-run", "tiny-pass.yaml", 0, "tiny-pass"); }

TEST(GoldenCli, CheckTinyFail) { expect_check_goldens("results/tiny-run", "tiny-fail.yaml", 3, "tiny-fail"); }

TEST(GoldenCli, CheckMixedDegenerate) {
  expect_check_goldens("results/mixed-run", "mixed-control.yaml", 3, "mixed-control");
}

// ---- cost (render_cost_text, cost_to_json) ----------------------------------------------------------

TEST(GoldenCli, CostWorkedExample) {
  std::vector<std::string> args = {"cost", "--gpus", "8", "--wait", "12m", "--rate", "2.5", "--incidents-per-day", "3"};
  expect_cli_golden(args, 0, "cost-worked-example.txt");
  args.push_back("--json");
  expect_cli_golden(args, 0, "cost-worked-example.json");
}

TEST(GoldenCli, CostFromGangResults) {
  std::vector<std::string> args = {"cost", "--from", fixture("decisions/gang-incidents.jsonl"), "--rate", "3"};
  expect_cli_golden(args, 0, "cost-gang-incidents.txt");
  args.push_back("--json");
  expect_cli_golden(args, 0, "cost-gang-incidents.json");
}

// ---- feasible (render_feasibility_text and its JSON) ------------------------------------------------

TEST(GoldenCli, FeasibleClusterStranded) {
  std::vector<std::string> args = {"feasible", "--inventory", fixture("decisions/cluster-stranded.yaml")};
  expect_cli_golden(args, 1, "feasible-cluster-stranded.txt");
  args.push_back("--json");
  expect_cli_golden(args, 1, "feasible-cluster-stranded.json");
}

TEST(GoldenCli, FeasibleRelaxedJob) {
  expect_cli_golden({"feasible", "--inventory", fixture("decisions/cluster-stranded.json"), "--job",
                     fixture("decisions/job-relaxed.yaml")},
                    0, "feasible-job-relaxed.txt");
}

TEST(GoldenCli, FeasibleIssueExample) {
  std::vector<std::string> args = {"feasible", "--inventory", fixture("decisions/issue-example.yaml")};
  expect_cli_golden(args, 1, "feasible-issue-example.txt");
  args.push_back("--json");
  expect_cli_golden(args, 1, "feasible-issue-example.json");
}

// ---- topo on a second fixture (render_inventory_table, inventory_to_json; tests/cli/topo_cli_test.cpp
// has the 2s2n-4gpu goldens), named by its absolute path -------------------------------------------

TEST(GoldenCli, TopoFourNodesTwoGpus) {
  std::vector<std::string> args = {"topo", "--topology", fixture("topologies/4n-2gpu.xml")};
  expect_cli_golden(args, 0, "topo-4n-2gpu.txt");
  args.push_back("--json");
  expect_cli_golden(args, 0, "topo-4n-2gpu.json");
}

// ---- --version: the one output with placeholders (library versions are this machine's) --------------

TEST(GoldenCli, Version) { expect_cli_golden({"--version"}, 0, "version.txt"); }
