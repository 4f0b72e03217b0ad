// `placebench audit` and `topo --expect` end to end: another process read from a fake /proc
// (tests/fixtures/audit/proc) judged against the 2-node fixture topology gives each placement class and
// its exit status; the managers' fixture files give the documented disagreements; malformed ones a
// one-line warning while the audit still reports; bad input exits 2 with one line.
#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"
#include "text_file.h"

#include "fixtures.h"
#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

namespace {

const std::string kAudit = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit";

std::vector<std::string> audit_argv(const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {placebench_binary(), "audit", "--json", "--proc-root", kAudit + "/proc",
                                   "--topology", own_topology("2s2n-4gpu.xml")};
  // Without a manager file named, none is read (the node's own /var/lib/kubelet stays out of the test).
  bool names_one = std::any_of(extra.begin(), extra.end(), [](const std::string& a) {
    return a == "--cpu-manager-state" || a == "--annotations";
  });
  if (!names_one) argv.push_back("--no-managers");
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

struct Audit {
  CommandResult result;
  json report;
};

Audit audit(const std::vector<std::string>& extra) {
  Audit a{run_command(audit_argv(extra)), {}};
  a.report = json::parse(a.result.out, nullptr, false);
  return a;
}

std::string placement_of(const json& report, const std::string& label) {
  for (const json& p : report["placements"])
    if (p["label"] == label) return p["placement"];
  return "(none)";
}

TEST(AuditCli, RemoteProcessOnTheOtherNode) {
  // NVIDIA_VISIBLE_DEVICES=GPU-bbbb... (31:00.0, node 0 by the driver's /proc files), CUDA_VISIBLE_DEVICES=0:
  // the process has that one GPU, not the node's four.
  Audit a = audit({"--pid", "4242"});
  ASSERT_FALSE(a.report.is_discarded()) << a.result.err << a.result.out;
  EXPECT_EQ(a.result.exit_code, 1) << a.result.err;
  EXPECT_EQ(a.report["schema_version"], 1);
  EXPECT_TRUE(a.report.contains("host") && a.report.contains("generated_at") && a.report.contains("placebench_version"));
  ASSERT_EQ(a.report["placements"].size(), 1u) << a.result.out;
  EXPECT_EQ(placement_of(a.report, "GPU 0"), "remote");
  EXPECT_EQ(a.report["placements"][0]["pci_bus_id"], "0000:31:00.0");
  EXPECT_EQ(a.report["placements"][0]["uuid"], "GPU-bbbbbbbb-1111-2222-3333-444444444444");
  EXPECT_EQ(a.report["process"]["threads"].size(), 2u);
  EXPECT_EQ(a.report["process"]["threads"][1]["name"], "pt_data_worker");
  EXPECT_EQ(a.report["memory"]["pages"]["1"], 2048);  // anonymous pages only
  EXPECT_EQ(a.report["placements"][0]["cpu_share_pct"], 0.0);
}

std::string annotations_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/audit-cli-" + name;
  write_text_file(path, text);
  return path;
}

TEST(AuditCli, TheDevicePluginsUuidWithTheContainersIndexIsTheContainersGpu) {
  // Issue 28: NVIDIA_VISIBLE_DEVICES=GPU-cccc... (b1:00.0, node 1), CUDA_VISIBLE_DEVICES=0, CPUs 1-2 on node 0.
  // Before: index 0 was the node's GPU 0 (17:00.0, node 0) and the audit passed, strict alignment and all.
  Audit a = audit({"--pid", "4246", "--annotations", annotations_file("strict", "hami.io/numa-alignment=\"strict\"\n")});
  ASSERT_FALSE(a.report.is_discarded()) << a.result.err << a.result.out;
  EXPECT_EQ(a.result.exit_code, 1) << a.result.out;
  ASSERT_EQ(a.report["placements"].size(), 1u) << a.result.out;
  EXPECT_EQ(a.report["placements"][0]["pci_bus_id"], "0000:b1:00.0");
  EXPECT_EQ(a.report["placements"][0]["placement"], "remote");
  EXPECT_NE(a.report["placements"][0]["how"].get<std::string>().find("driver/nvidia/gpus/0000:b1:00.0/information"), std::string::npos)
      << a.report["placements"][0]["how"];
  EXPECT_NE(a.report["disagreements"].dump().find("hami.io/numa-alignment=strict asks for CPUs on the GPU's node; GPU 0 is on node 1"),
            std::string::npos) << a.report["disagreements"];
  // Two GPUs by UUID, CUDA's index 1: the second of the container's in PCI bus order (ca:00.0, node 1), local.
  Audit second = audit({"--pid", "4248"});
  EXPECT_EQ(second.result.exit_code, 0) << second.result.out;
  ASSERT_EQ(second.report["placements"].size(), 1u) << second.result.out;
  EXPECT_EQ(second.report["placements"][0]["pci_bus_id"], "0000:ca:00.0");
  EXPECT_EQ(second.report["placements"][0]["placement"], "local");
}

TEST(AuditCli, AGpuThatCannotBeIdentifiedNeverPasses) {
  // GPU-eeee... is in no source of the node: unknown, with the reason, and exit 1 even judged against
  // its own (local) node and without any annotation.
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--pid", "4247"},
                                                std::vector<std::string>{"--pid", "4247", "--device-numa", "0"}}) {
    Audit a = audit(extra);
    ASSERT_FALSE(a.report.is_discarded()) << a.result.err << a.result.out;
    EXPECT_EQ(a.result.exit_code, 1) << a.result.out;
    EXPECT_EQ(a.report["all_local"], false);
    ASSERT_EQ(a.report["unknown"].size(), 1u) << a.result.out;
    EXPECT_NE(a.report["unknown"][0].get<std::string>().find("GPU-eeeeeeee-1111-2222-3333-444444444444, which no source maps"),
              std::string::npos) << a.report["unknown"];
  }
  Audit a = audit({"--pid", "4247"});
  EXPECT_EQ(placement_of(a.report, "GPU 0"), "unknown");
  CommandResult table = run_command({placebench_binary(), "audit", "--proc-root", kAudit + "/proc", "--topology",
                                     own_topology("2s2n-4gpu.xml"), "--no-managers", "--pid", "4247"});
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_NE(table.out.find("the placement cannot be told for every device (exit 1)"), std::string::npos) << table.out;
}

TEST(AuditCli, AKernelThreadOrAZombieIsUnknownNotLocal) {
  for (const char* pid : {"77", "4249"}) {
    Audit a = audit({"--pid", pid, "--device-numa", "0"});
    ASSERT_FALSE(a.report.is_discarded()) << pid << a.result.err << a.result.out;
    EXPECT_EQ(a.result.exit_code, 1) << pid << a.result.out;
    EXPECT_EQ(placement_of(a.report, "device on node 0"), "unknown") << a.result.out;
    EXPECT_NE(a.report["unknown"][0].get<std::string>().find(std::string(pid) == "77" ? "is a kernel thread" : "is a zombie"),
              std::string::npos) << a.report["unknown"];
  }
}

// A copy of fixture pid 4246 whose `file` is a FIFO (git cannot hold one), or a directory.
std::string proc_with(const std::string& file, bool fifo) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(::testing::TempDir()) / ("audit-proc-" + std::string(fifo ? "fifo-" : "dir-") + file);
  fs::remove_all(root);
  fs::create_directories(root);
  fs::copy(kAudit + "/proc/4246", root / "4246", fs::copy_options::recursive);
  fs::copy(kAudit + "/proc/driver", root / "driver", fs::copy_options::recursive);
  fs::remove(root / "4246" / file);
  if (fifo) EXPECT_EQ(::mkfifo((root / "4246" / file).c_str(), 0600), 0);
  else fs::create_directory(root / "4246" / file);
  return root.string();
}

TEST(AuditCli, AFifoInTheProcTreeIsRefusedNotWaitedOn) {
  const std::vector<std::string> base = {placebench_binary(), "audit", "--json", "--topology", own_topology("2s2n-4gpu.xml"),
                                         "--no-managers", "--pid", "4246", "--proc-root"};
  auto with = [&](const std::string& root) {
    std::vector<std::string> argv = base;
    argv.push_back(root);
    return run_command(argv, 20);
  };
  CommandResult status = with(proc_with("status", true));
  EXPECT_FALSE(status.timed_out);
  EXPECT_EQ(status.exit_code, 2) << status.err;
  EXPECT_NE(status.err.find("not a regular file (a FIFO)"), std::string::npos) << status.err;
  for (bool fifo : {true, false}) {  // numa_maps a FIFO, or unreadable (a directory): memory unknown, exit 1
    CommandResult maps = with(proc_with("numa_maps", fifo));
    EXPECT_FALSE(maps.timed_out);
    EXPECT_EQ(maps.exit_code, 1) << maps.err << maps.out;
    json j = json::parse(maps.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << maps.out;
    EXPECT_EQ(j["placements"][0]["placement"], "unknown");
    EXPECT_NE(j["unknown"].dump().find("where the process's memory is cannot be told"), std::string::npos) << j["unknown"];
  }
  CommandResult environ = with(proc_with("environ", true));  // the variables unknown: so are its GPUs
  EXPECT_EQ(environ.exit_code, 1) << environ.err << environ.out;
  EXPECT_NE(environ.out.find("the process's variables cannot be read"), std::string::npos) << environ.out;
}

TEST(AuditCli, DraRecordsAreJudgedLikeAnyGpu) {
  // The claim reserved for pod 6f1c2d3e-... (4246's cgroup) got gpu-2, numaNode 1 in its ResourceSlice;
  // the process's CPUs 1-2 are on node 0. 4248 has GPU-dddd... although the claim gave GPU-cccc....
  const std::string dra = kAudit + "/dra/claims-and-slices.json";
  Audit a = audit({"--pid", "4246", "--dra", dra, "--cpu-manager-state", kAudit + "/kubelet/cpu_manager_state"});
  ASSERT_FALSE(a.report.is_discarded()) << a.result.err << a.result.out;
  EXPECT_EQ(a.result.exit_code, 1);
  EXPECT_EQ(a.report["managers"]["dra"][0]["numa_node"], 1);
  EXPECT_NE(a.report["disagreements"].dump().find("DRA GPU gpu-2 (claim ml/dra-trainer-0-gpu-7xk2p) on node 1, the process's CPUs on node(s) 0"),
            std::string::npos) << a.report["disagreements"];
  Audit other = audit({"--pid", "4248", "--dra", dra, "--cpu-manager-state", kAudit + "/kubelet/cpu_manager_state"});
  EXPECT_NE(other.report["disagreements"].dump().find("DRA allocated GPU GPU-cccccccc-1111-2222-3333-444444444444 (gpu-2, claim "
                                                      "ml/dra-trainer-0-gpu-7xk2p), the container sees GPU-dddddddd-1111-2222-3333-444444444444"),
            std::string::npos) << other.report["disagreements"];
  CommandResult bad = run_command(audit_argv({"--pid", "4246", "--dra", kAudit + "/podinfo/labels", "--cpu-manager-state",
                                              kAudit + "/kubelet/cpu_manager_state"}));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("labels: not a Kubernetes List"), std::string::npos) << bad.err;
}

TEST(AuditCli, DeviceNodeGivesExitZeroWhenLocal) {
  Audit a = audit({"--pid", "4242", "--device-numa", "1"});
  EXPECT_EQ(a.result.exit_code, 0) << a.result.err << a.result.out;
  EXPECT_EQ(placement_of(a.report, "device on node 1"), "local");
  EXPECT_EQ(a.report["all_local"], true);
}

TEST(AuditCli, SplitAndSpanning) {
  Audit split = audit({"--pid", "4243", "--device-numa", "0"});
  EXPECT_EQ(split.result.exit_code, 1);
  EXPECT_EQ(placement_of(split.report, "device on node 0"), "split") << split.result.out;
  EXPECT_EQ(split.report["memory"]["policy"], "bind:1");
  Audit spanning = audit({"--pid", "4244", "--device-numa", "0"});
  EXPECT_EQ(placement_of(spanning.report, "device on node 0"), "spanning") << spanning.result.out;
  EXPECT_EQ(spanning.report["placements"][0]["page_share_pct"], 50.0);
}

// --pid of a process in another pod than POD_UID names: placebench's variables and downward API files are its
// own pod's, so they are not taken for the process's (its HAMi annotation would be another pod's); a warning
// says so, and the pod is the cgroup path's UID alone. The same variables of the process's own pod are kept.
TEST(AuditCli, AnotherPodsIdentityIsNotTakenForTheProcesss) {
  std::vector<std::string> argv = audit_argv({"--pid", "4242", "--device-numa", "1",
                                              "--cpu-manager-state", kAudit + "/kubelet/cpu_manager_state",
                                              "--annotations", kAudit + "/podinfo/annotations",
                                              "--labels", kAudit + "/podinfo/labels"});
  const std::vector<std::string> other = {"POD_UID=11111111-2222-3333-4444-555555555555", "POD_NAME=auditor",
                                          "POD_NAMESPACE=tools", "CONTAINER_NAME=auditor"};
  json a = json::parse(run_command(argv, 60, other).out, nullptr, false);
  ASSERT_FALSE(a.is_discarded());
  EXPECT_EQ(a["managers"]["pod"]["uid"], "6f1c2d3e-aaaa-bbbb-cccc-0123456789ab");
  EXPECT_EQ(a["managers"]["pod"]["name"], "");
  EXPECT_EQ(a["managers"]["pod"]["container"], "");
  EXPECT_EQ(a["managers"]["pod"]["group"], "");
  EXPECT_EQ(a["disagreements"].dump().find("HAMi"), std::string::npos) << a["disagreements"].dump();
  EXPECT_NE(a["warnings"].dump().find("process 4242 is in pod 6f1c2d3e-aaaa-bbbb-cccc-0123456789ab (its cgroup path), and "
                                                  "POD_UID names pod 11111111-2222-3333-4444-555555555555"),
            std::string::npos) << a["warnings"].dump();
  const std::vector<std::string> same = {"POD_UID=6f1c2d3e-aaaa-bbbb-cccc-0123456789ab", "POD_NAME=trainer-0",
                                         "POD_NAMESPACE=ml", "CONTAINER_NAME=trainer"};
  json b = json::parse(run_command(argv, 60, same).out, nullptr, false);
  ASSERT_FALSE(b.is_discarded());
  EXPECT_EQ(b["managers"]["pod"]["name"], "trainer-0");
  EXPECT_EQ(b["managers"]["pod"]["container"], "trainer");
  EXPECT_EQ(b["managers"]["pod"]["group"], "train-job-pg");
  EXPECT_EQ(b["warnings"].dump().find("POD_UID names pod"), std::string::npos);
}

TEST(AuditCli, ManagersDisagreementsFromFixtures) {
  std::vector<std::string> args = {"--pid", "4242", "--device-numa", "1",
                                   "--cpu-manager-state", kAudit + "/kubelet/cpu_manager_state",
                                   "--memory-manager-state", kAudit + "/kubelet/memory_manager_state",
                                   "--kubelet-config", kAudit + "/kubelet/config.yaml",
                                   "--annotations", kAudit + "/podinfo/annotations",
                                   "--labels", kAudit + "/podinfo/labels",
                                   "--container", "trainer"};
  Audit a = audit(args);
  ASSERT_FALSE(a.report.is_discarded()) << a.result.err;
  EXPECT_EQ(a.result.exit_code, 1);  // local to node 1, but the managers disagree
  EXPECT_EQ(a.report["managers"]["pod"]["uid"], "6f1c2d3e-aaaa-bbbb-cccc-0123456789ab");  // from the cgroup path
  EXPECT_EQ(a.report["managers"]["pod"]["group"], "train-job-pg");
  std::string all = a.report["disagreements"].dump();
  EXPECT_NE(all.find("HAMi annotated GPU GPU-aaaaaaaa-1111-2222-3333-444444444444 (hami.io/vgpu-devices-allocated), the container sees "
                     "GPU GPU-bbbbbbbb-1111-2222-3333-444444444444 (NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES)"), std::string::npos) << all;
  EXPECT_NE(all.find("CPUs 4-7 are allowed but the CPU manager did not assign them"), std::string::npos) << all;
  EXPECT_NE(all.find("memory nodes 1 are allowed but the memory manager assigned 0"), std::string::npos) << all;
}

TEST(AuditCli, MalformedManagerFileWarnsAndTheAuditStillReports) {
  Audit a = audit({"--pid", "4242", "--device-numa", "1", "--cpu-manager-state", kAudit + "/kubelet/cpu_manager_state.truncated"});
  EXPECT_EQ(a.result.exit_code, 0) << a.result.err;
  EXPECT_EQ(placement_of(a.report, "device on node 1"), "local");
  EXPECT_EQ(a.report["managers"]["cpu_manager"]["file"]["status"], "malformed");
  EXPECT_NE(a.result.err.find("placebench: warning: " + kAudit + "/kubelet/cpu_manager_state.truncated: line 1, column"),
            std::string::npos) << a.result.err;
  EXPECT_EQ(std::count(a.result.err.begin(), a.result.err.end(), '\n'), 1) << a.result.err;
}

TEST(AuditCli, BadInputIsOneLineAndExitTwo) {
  for (const auto& extra : std::vector<std::vector<std::string>>{{"--pid", "999999"},
                                                                  {"--pid", "4242", "--device-numa", "5"},
                                                                  {"--pid", "4242", "--device-numa", "x"},
                                                                  {"--pid", "4242", "--annotations", kAudit + "/nope"}}) {
    CommandResult r = run_command(audit_argv(extra));
    EXPECT_EQ(r.exit_code, 2) << extra[1] << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("placebench: ", 0), 0u) << r.err;
  }
}

// --device-numa, as verify and plan call the device's node; --device, its old name, still works (until 0.3).
TEST(AuditCli, TheOldDeviceOptionNameIsAnAlias) {
  CommandResult now = run_command(audit_argv({"--pid", "4242", "--device-numa", "1"}));
  CommandResult old = run_command(audit_argv({"--pid", "4242", "--device", "1"}));
  EXPECT_EQ(old.exit_code, now.exit_code) << old.err;
  EXPECT_EQ(old.out, now.out);
  EXPECT_NE(now.out.find("device on node 1"), std::string::npos) << now.out;
}

TEST(AuditCli, ThisProcessLiveAgainstANode) {
  CommandResult r = run_command({placebench_binary(), "audit", "--device-numa", "0", "--no-managers"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("device on node 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("probe buffer of 4194304 bytes"), std::string::npos) << r.out;
}

// A process on another CPU beside a run (PLACEBENCH_WATCH_PIDS): every trial of the pinned arm records
// its thread and is flagged; the unpinned arm's trials are not watched.
TEST(LateThreadsCli, AWatchedProcessOutsideTheArmFlagsItsTrials) {
  std::vector<int> allowed = placebench::hostpipe::current_thread_affinity();
  if (allowed.size() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  const int other_cpu = allowed.back();
  pid_t child = fork();
  if (child == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<unsigned>(other_cpu), &set);
    sched_setaffinity(0, sizeof set, &set);
    execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(child, 0);
  std::string out = ::testing::TempDir() + "/late-threads-run";
  std::filesystem::remove_all(out);
  CommandResult r = run_command({placebench_binary(), "run", "--config", std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/configs/tiny.yaml",
                                 "--out", out}, 120, {"PLACEBENCH_WATCH_PIDS=" + std::to_string(child)});
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(read_text_file(out + "/trials.jsonl"));
  int local = 0;
  for (std::string line; std::getline(lines, line);) {
    json t = json::parse(line);
    if (t["arm"] == "unpinned") {
      EXPECT_FALSE(t["placement"].contains("threads"));
      continue;
    }
    std::vector<int> arm = placebench::hostpipe::parse_cpulist(t["placement"]["threads"]["cpus"].get<std::string>());
    if (std::find(arm.begin(), arm.end(), other_cpu) != arm.end()) GTEST_SKIP() << "the local arm holds every CPU here";
    ++local;
    const json& outside = t["placement"]["threads"]["outside"];
    ASSERT_EQ(outside.size(), 1u) << t["placement"].dump();
    EXPECT_EQ(outside[0]["pid"], child);
    EXPECT_EQ(outside[0]["name"], "sleep");
    ASSERT_EQ(t["flags"].size(), 1u) << t["flags"].dump();
    EXPECT_EQ(t["flags"][0].get<std::string>().rfind("late_threads: 1 thread(s) outside the arm's CPUs", 0), 0u) << t["flags"];
  }
  EXPECT_GE(local, 3);
  EXPECT_NE(r.out.find("flagged"), std::string::npos) << r.out;
}

TEST(TopoExpectCli, IdenticalMatches) {
  for (const std::string& expected : {own_topology("2s2n-4gpu.xml"), std::string(PLACEBENCH_SOURCE_DIR) + "/tests/golden/topo-2s2n-4gpu.json"}) {
    CommandResult r = run_command({placebench_binary(), "topo", "--topology", own_topology("2s2n-4gpu.xml"), "--expect", expected});
    EXPECT_EQ(r.exit_code, 0) << expected << r.out << r.err;
    EXPECT_NE(r.out.find("topology matches"), std::string::npos) << r.out;
  }
}

TEST(TopoExpectCli, SwappedGpuNodesAndAMissingGpuAreNamed) {
  CommandResult swapped = run_command({placebench_binary(), "topo", "--topology", own_topology("2s2n-4gpu.xml"), "--expect",
                                       kAudit + "/expect/2s2n-4gpu-swapped.json"});
  EXPECT_EQ(swapped.exit_code, 1) << swapped.err;
  EXPECT_NE(swapped.out.find("GPU 0000:17:00.0: NUMA node expected 1, found 0"), std::string::npos) << swapped.out;
  EXPECT_NE(swapped.out.find("GPU 0000:b1:00.0: NUMA node expected 0, found 1"), std::string::npos) << swapped.out;
  CommandResult missing = run_command({placebench_binary(), "topo", "--json", "--topology",
                                       kAudit + "/expect/2s2n-4gpu-missing-gpu1.xml", "--expect", own_topology("2s2n-4gpu.xml")});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  json j = json::parse(missing.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << missing.out;
  EXPECT_EQ(j["matches"], false);
  EXPECT_EQ(j["differences"], json::array({"GPU 0000:31:00.0 (expected on NUMA node 0): missing"}));
  EXPECT_TRUE(j.contains("generated_at"));
}

TEST(TopoExpectCli, ExpectedFileThatIsNeitherIsBadInput) {
  CommandResult r = run_command({placebench_binary(), "topo", "--topology", own_topology("2s2n-4gpu.xml"), "--expect",
                                 kAudit + "/podinfo/labels"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("neither hwloc XML nor JSON"), std::string::npos) << r.err;
}

}  // namespace
