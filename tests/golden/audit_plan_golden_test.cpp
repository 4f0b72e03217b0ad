// Golden outputs of `placebench audit` (render_audit_table, audit_to_json) on the fake /proc of
// tests/fixtures/audit judged against the committed 2s2n-4gpu topology, as tests/cli/audit_cli_test.cpp
// runs it, and of `placebench plan` (its table and JSON) on committed hwloc XML topologies. Nothing is
// read from this machine: --dev-root is an empty directory (no /dev/nvidiaN); every manager file is named
// (the PodResources socket a regular file) or --no-managers given, so the node's kubelet and downward API
// stay out; the POD_* and CONTAINER_NAME defaults that placebench takes from its own environment are set
// empty. The JSON's evidence stamp (time, host, version) is the only placeholder. `verify` has no
// golden: it only ever runs on the live machine.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_golden.h"

using namespace placebench::golden;

namespace {

// placebench's own POD_* and CONTAINER_NAME are the pod's defaults (this very shell may set them): empty here.
const std::vector<std::string> kNoPodEnv = {"POD_NAME=", "POD_NAMESPACE=", "POD_UID=", "CONTAINER_NAME="};

// A regular file for --pod-resources-socket: "not a socket", whichever way placebench was built and
// whether or not this machine runs a kubelet (the default socket path would be this machine's).
std::string not_a_socket(const std::string& dir) {
  std::string path = dir + "/pod-resources.sock";
  std::ofstream(path).close();
  return path;
}

// audit of fixture process PID on 2s2n-4gpu.xml with `extra`, table then --json, into audit-NAME.txt/.json.
// `dir` is the test's temporary directory (an empty --dev-root, absent manager files): {{TMP}}.
void expect_audit_goldens(const std::string& pid, const std::vector<std::string>& extra, int exit_code, const std::string& name,
                          const std::string& dir) {
  std::vector<std::string> args = {"audit", "--proc-root", fixture("audit/proc"), "--topology",
                                   fixture("topologies/2s2n-4gpu.xml"), "--dev-root", dir, "--pid", pid};
  args.insert(args.end(), extra.begin(), extra.end());
  Substitutions tmp{{dir, "{{TMP}}"}};
  expect_cli_golden(args, exit_code, "audit-" + name + ".txt", tmp, kNoPodEnv);
  args.push_back("--json");
  expect_cli_golden(args, exit_code, "audit-" + name + ".json", tmp, kNoPodEnv);
}

}  // namespace

// The process's one GPU (by NVIDIA_VISIBLE_DEVICES' UUID) is on node 0, its CPUs and pages on node 1: remote.
TEST(GoldenAudit, RemoteProcessNoManagers) {
  expect_audit_goldens("4242", {"--no-managers"}, 1, "remote-no-managers", temp_dir("audit-remote"));
}

// Judged against node 1 it is local, but the managers' files disagree (HAMi, CPU and memory manager,
// topology manager policy).
TEST(GoldenAudit, ManagersDisagree) {
  const std::string dir = temp_dir("audit-managers"), kubelet = fixture("audit/kubelet/"), podinfo = fixture("audit/podinfo/");
  expect_audit_goldens("4242",
                       {"--device-numa", "1", "--cpu-manager-state", kubelet + "cpu_manager_state", "--memory-manager-state",
                        kubelet + "memory_manager_state", "--kubelet-config", kubelet + "config.yaml", "--annotations",
                        podinfo + "annotations", "--labels", podinfo + "labels", "--pod-resources-socket", not_a_socket(dir),
                        "--container", "trainer"},
                       1, "managers-disagree", dir);
}

// Split (memory bound to the other node) and a GPU that no source maps (unknown, never a pass).
TEST(GoldenAudit, SplitAndUnknown) {
  expect_audit_goldens("4243", {"--no-managers", "--device-numa", "0"}, 1, "split", temp_dir("audit-split"));
  expect_audit_goldens("4247", {"--no-managers"}, 1, "unknown-gpu", temp_dir("audit-unknown"));
}

// A DRA claim's GPU on node 1 against CPUs on node 0; the other managers' files are ones that add no
// disagreement (the memory manager's policy None, no annotations).
TEST(GoldenAudit, DraClaim) {
  const std::string dir = temp_dir("audit-dra"), annotations = dir + "/annotations";
  std::ofstream(annotations).close();
  expect_audit_goldens("4246",
                       {"--dra", fixture("audit/dra/claims-and-slices.json"), "--cpu-manager-state",
                        fixture("audit/kubelet/cpu_manager_state"), "--memory-manager-state",
                        fixture("kubelet-state/memory_manager_state.none"), "--kubelet-config",
                        fixture("kubelet-state/config.yaml"), "--annotations", annotations, "--labels",
                        fixture("audit/podinfo/labels"), "--pod-resources-socket", not_a_socket(dir)},
                       1, "dra-claim", dir);
}

// ---- plan: every arm's CPU set and memory nodes on a saved topology ---------------------------------

namespace {

void expect_plan_goldens(const std::string& topology, const std::vector<std::string>& extra, const std::string& name) {
  std::vector<std::string> args = {"plan", "--topology", fixture("topologies/" + topology)};
  args.insert(args.end(), extra.begin(), extra.end());
  expect_cli_golden(args, 0, "plan-" + name + ".txt");
  args.push_back("--json");
  expect_cli_golden(args, 0, "plan-" + name + ".json");
}

}  // namespace

TEST(GoldenPlan, TwoSocketsDefault) { expect_plan_goldens("2s2n-4gpu.xml", {}, "2s2n-4gpu"); }

// GPU 2 (node 1), two workers sharing its node: disjoint CPU sets per worker.
TEST(GoldenPlan, TwoWorkersOnTheSecondNode) {
  expect_plan_goldens("2s2n-4gpu.xml", {"--gpu", "2", "--workers", "2"}, "2s2n-4gpu-gpu2-workers2");
}

// One NUMA node: the remote arms are degenerate, said in the notes.
TEST(GoldenPlan, OneNodeDegenerate) { expect_plan_goldens("1n-cpu.xml", {"--allow-degenerate"}, "1n-cpu-degenerate"); }
