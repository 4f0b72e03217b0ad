// `placebench admission` end to end on the kubectl fixtures in tests/fixtures/admission (three cases of
// docs/admission.md), and its answers to malformed and partial snapshots.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/admission/" + rel; }

json admission_json(std::vector<std::string> args) {
  args.insert(args.begin(), {placebench_binary(), "admission"});
  args.push_back("--json");
  auto r = run_command(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

CommandResult run_admission(std::vector<std::string> args) {
  args.insert(args.begin(), {placebench_binary(), "admission"});
  return run_command(args);
}

fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("pb-admission-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const json& stage(const json& job, const std::string& name) {
  for (const auto& s : job["stages"])
    if (s["name"] == name) return s;
  throw std::runtime_error("no stage " + name);
}

}  // namespace

TEST(AdmissionCli, GangAdmittedWholeAfterTheFourthPlacement) {
  json j = admission_json({fixture("admitted-whole"), "--gang", fixture("admitted-whole-gang.json")});
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_TRUE(j.contains("host") && j.contains("generated_at") && j.contains("placebench_version"));
  ASSERT_EQ(j["jobs"].size(), 1u);
  const json& job = j["jobs"][0];
  EXPECT_EQ(job["scheduler"], "volcano");
  EXPECT_EQ(job["min_member"], 4);
  EXPECT_EQ(job["min_member_source"], "podgroup");
  EXPECT_EQ(job["full_gang_at"], "2026-12-01T10:05:00Z");
  EXPECT_EQ(job["time_to_full_gang_s"], 300.0);
  EXPECT_EQ(job["time_to_all_ready_s"], 340.0);
  EXPECT_EQ(job["first_step_at"], "2026-12-01T10:05:33.500Z");  // container start 10:05:20 + rank 3's 13.5 s
  EXPECT_EQ(job["stranded_gpu_s"], 0.0);                        // bound whole: nothing waited
  EXPECT_DOUBLE_EQ(job["idle_before_ready_gpu_s"].get<double>(), 8 * 33.5);
  EXPECT_EQ(job["delay_stage"], "scheduling");
  EXPECT_EQ(stage(job, "scheduling")["seconds"], 300.0);
  EXPECT_EQ(stage(job, "image pull and start")["seconds"], 20.0);
  EXPECT_EQ(stage(job, "rendezvous")["seconds"], 13.5);
  ASSERT_EQ(job["podgroup_phases"].size(), 2u);
  EXPECT_EQ(job["podgroup_phases"][0]["phase"], "Inqueue");
  EXPECT_EQ(job["podgroup_phases"][1]["phase"], "Running");
  EXPECT_EQ(job["podgroup_phases"][1]["time"], "2026-12-01T10:05:00Z");
  EXPECT_EQ(job["failed_scheduling_reasons"].size(), 1u);
  EXPECT_EQ(job["failure_at"], nullptr);
  EXPECT_EQ(job["pods"][3]["rank"], 3);
  EXPECT_EQ(job["pods"][0]["rank_ready"], "2026-12-01T10:05:24Z");
}

TEST(AdmissionCli, ThreeOfFourBoundWaitTwelveMinutes) {
  json j = admission_json({fixture("partial-waiting")});
  const json& job = j["jobs"][0];
  EXPECT_EQ(job["group"], "gang-p");
  EXPECT_EQ(job["scheduler"], "none");
  EXPECT_EQ(job["min_member_source"], "pods seen");
  EXPECT_EQ(job["full_gang_at"], nullptr);
  ASSERT_EQ(job["waiting_allocations"].size(), 3u);
  for (const auto& a : job["waiting_allocations"]) {
    EXPECT_EQ(a["gpus"], 2.0);
    EXPECT_EQ(a["gpu_s"], 2 * 720.0);
  }
  EXPECT_EQ(job["stranded_gpu_s"], 72 * 60.0);  // 6 GPUs x 12 min = 72 GPU-minutes
  EXPECT_EQ(job["pods"][0]["gpumem_mib"], 40000.0);  // HAMi's nvidia.com/gpumem
  EXPECT_EQ(job["delay_stage"], "scheduling");
  EXPECT_FALSE(stage(job, "scheduling")["finished"].get<bool>());
  EXPECT_EQ(job["events"][0]["count"], 28);
  ASSERT_EQ(j["warnings"].size(), 2u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("no PodGroup"), std::string::npos);
  EXPECT_NE(j["warnings"][1].get<std::string>().find("attempt 1 still pending at the last snapshot, 725 s after it began (3 of 4 pods bound)"),
            std::string::npos) << j["warnings"];
  EXPECT_EQ(job["attempts"][0]["pending_age_s"], 725.0);
}

TEST(AdmissionCli, OnePodNeverReadyAndTheJobCleanedUp) {
  json j = admission_json({fixture("never-ready")});
  const json& job = j["jobs"][0];
  EXPECT_EQ(job["scheduler"], "scheduler-plugins");
  EXPECT_EQ(job["full_gang_at"], "2026-12-01T10:00:10Z");
  EXPECT_EQ(job["all_ready_at"], nullptr);
  EXPECT_EQ(job["failure_at"], "2026-12-01T10:10:00Z");
  EXPECT_NE(job["failure_reason"].get<std::string>().find("DeadlineExceeded"), std::string::npos);
  EXPECT_EQ(job["cleanup_done_at"], "2026-12-01T10:11:00Z");  // first pod listing without them
  EXPECT_EQ(job["cleanup_s"], 60.0);
  EXPECT_EQ(job["retries"]["restarts"], 2);
  EXPECT_EQ(job["retries"]["recreated_pods"], 0);
  EXPECT_EQ(job["waiting_allocations"].size(), 0u);  // bound whole
  EXPECT_EQ(job["stranded_gpu_s"], 8 * 60.0);         // but held from the deadline to their release: 8 GPUs x 60 s
  EXPECT_EQ(job["held_after_failure"].size(), 4u);
  EXPECT_EQ(job["idle_before_ready_gpu_s"], 8 * 650.0);
  EXPECT_EQ(job["delay_stage"], "image pull and start");
  EXPECT_EQ(job["podgroup_phases"][0]["source"], "scheduleStartTime");
  EXPECT_EQ(job["pods"][3]["gone"], "2026-12-01T10:11:00Z");
  EXPECT_EQ(job["pods"][3]["deleted"], "2026-12-01T10:10:30Z");
}

TEST(AdmissionCli, TableAndOutFile) {
  fs::path d = scratch("out");
  auto r = run_admission({fixture("partial-waiting"), "--out", (d / "admission.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4320 GPU-s (72.0 GPU-min) on 3 waiting allocation(s)"), std::string::npos) << r.out;
  EXPECT_EQ(json::parse(read_text_file((d / "admission.json").string()))["jobs"][0]["stranded_gpu_s"], 4320.0);
  auto again = run_admission({fixture("partial-waiting"), "--out", (d / "admission.json").string()});
  EXPECT_EQ(again.exit_code, 2);  // never overwritten
  EXPECT_NE(again.err.find("already exists"), std::string::npos);
  fs::remove_all(d);
}

TEST(AdmissionCli, MalformedSnapshotsNameTheFileAndObject) {
  fs::path d = scratch("bad");
  struct Case {
    std::string name, text, expect;
  } cases[] = {
      {"notjson.json", "{\"items\": [", "not JSON"},
      {"notlist.json", "[1, 2]", "not a kubectl List"},
      {"noname.json", R"({"kind":"List","items":[{"kind":"Pod","metadata":{"creationTimestamp":"2026-12-01T10:00:00Z"}}]})",
       "items[0] (Pod): metadata.name is missing"},
      {"badtime.json",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"w-0","namespace":"bench","creationTimestamp":"yesterday"}}]})",
       "items[0] (Pod bench/w-0): metadata.creationTimestamp 'yesterday' is not an RFC 3339 time"},
      {"badcond.json",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"w-1","creationTimestamp":"2026-12-01T10:00:00Z"},
          "status":{"conditions":[{"type":"PodScheduled","status":"True"}]}}]})",
       "status.conditions[0] (PodScheduled True) has no lastTransitionTime"},
      {"badqty.json",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"w-2","creationTimestamp":"2026-12-01T10:00:00Z"},
          "spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"two"}}}]}}]})",
       "'two' is not a quantity"},
      {"longqty.json",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"w-3","creationTimestamp":"2026-12-01T10:00:00Z"},
          "spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":")" + std::string(100000, '7') + R"(x"}}}]}}]})",
       "is not a quantity"},
      {"badcount.json",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"w-4","creationTimestamp":"2026-12-01T10:00:00Z"},
          "status":{"containerStatuses":[{"name":"c","restartCount":"many"}]}}]})",
       "restartCount is not a whole number"},
      {"badevent.json", R"({"kind":"List","items":[{"kind":"Event","metadata":{"name":"e"},"involvedObject":{"kind":"Pod"}}]})",
       "involvedObject.name is missing"},
  };
  for (const auto& c : cases) {
    std::string path = (d / c.name).string();
    write_text_file(path, c.text);
    auto r = run_admission({path});
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("placebench: " + path + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  fs::remove_all(d);
}

TEST(AdmissionCli, PartialSnapshotsWarnAndShowWhatCanBeComputed) {
  fs::path d = scratch("partial");
  std::string path = (d / "events-only.json").string();
  write_text_file(path, R"({"kind":"List","items":[{"kind":"Event","metadata":{"name":"e","namespace":"bench"},
    "involvedObject":{"kind":"PodGroup","name":"pg"},"reason":"Unschedulable","message":"0/4 nodes",
    "firstTimestamp":"2026-12-01T10:00:00Z","lastTimestamp":"2026-12-01T10:05:00Z","count":5},
    {"kind":"ConfigMap","metadata":{"name":"x"}}]})");
  auto r = run_admission({path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["observed_until"], "2026-12-01T10:05:00Z");  // no time in the name: the latest time in the file
  std::string warnings = j["warnings"].dump();
  EXPECT_NE(warnings.find("no Pods"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("kind 'ConfigMap' ignored"), std::string::npos) << warnings;
  auto missing_group = run_admission({path, "--group", "nope"});
  EXPECT_EQ(missing_group.exit_code, 2);
  fs::remove_all(d);
}

// #28: a PodGroup minimum below the job's pod count is a partial gang, not a whole one.
TEST(AdmissionCli, AMinimumBelowThePodCountIsAPartialGangWithStrandedGpus) {
  json j = admission_json({fixture("min-below-pods")});
  ASSERT_EQ(j["jobs"].size(), 1u);
  const json& job = j["jobs"][0];
  EXPECT_EQ(job["scheduler"], "volcano");
  EXPECT_EQ(job["min_member"], 2);
  EXPECT_EQ(job["min_member_source"], "podgroup");
  EXPECT_EQ(job["pod_count"], 4);
  EXPECT_EQ(job["pod_count_source"], "Job elastic");
  EXPECT_TRUE(job["min_below_pod_count"].get<bool>());
  EXPECT_EQ(job["min_gang_at"], "2026-12-01T10:02:40Z");  // what Volcano calls admitted
  EXPECT_EQ(job["full_gang_at"], nullptr);                // 2 of 4: never whole
  EXPECT_EQ(job["stranded_gpu_s"], 2 * 2 * 2220.0);       // 2 pods x 2 GPUs x 37 min
  EXPECT_EQ(job["delay_stage"], "scheduling");
  ASSERT_EQ(job["attempts"].size(), 1u);
  EXPECT_TRUE(job["attempts"][0]["pending"].get<bool>());
  EXPECT_EQ(job["attempts"][0]["pending_age_s"], 2380.0);
  EXPECT_NE(j["warnings"].dump().find("minimum 2 (podgroup) is below the job's 4 pods"), std::string::npos) << j["warnings"];
  auto table = run_admission({fixture("min-below-pods")});
  EXPECT_NE(table.out.find("gang of 4, minimum 2"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("minimum (2) bound +2m40s"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("full gang bound   -"), std::string::npos) << table.out;
}

// #28: a worker OOMKilled, the job restarted: GPUs held until the old pods are gone are stranded, and the
// recreated gang is a second attempt, pending at the last snapshot.
TEST(AdmissionCli, ARestartedGangIsASecondAttemptAndTheHeldGpusAreStranded) {
  json j = admission_json({fixture("volcano-restart")});
  const json& job = j["jobs"].at(0);
  EXPECT_EQ(job["pod_count"], 4);
  ASSERT_EQ(job["attempts"].size(), 2u);
  const json& first = job["attempts"][0];
  EXPECT_EQ(first["full_gang_at"], "2026-12-01T10:00:10Z");
  EXPECT_EQ(first["failure_at"], "2026-12-01T10:20:00Z");
  EXPECT_NE(first["failure_reason"].get<std::string>().find("OOMKilled exit code 137"), std::string::npos);
  EXPECT_EQ(first["cleanup_s"], 85.0);
  ASSERT_EQ(first["held_after_failure"].size(), 3u);  // the OOMKilled pod released its GPUs when it failed
  EXPECT_EQ(first["stranded_gpu_s"], 24 * 85.0);
  const json& second = job["attempts"][1];
  EXPECT_EQ(second["start"], "2026-12-01T10:20:00Z");
  EXPECT_EQ(second["pods"].size(), 4u);
  EXPECT_TRUE(second["pending"].get<bool>());
  EXPECT_EQ(second["pending_age_s"], 510.0);  // 8.5 minutes
  EXPECT_EQ(job["stranded_gpu_s"], 24 * 85.0);
  EXPECT_EQ(job["retries"]["recreated_pods"], 4);
  EXPECT_NE(j["warnings"].dump().find("attempt 2 still pending at the last snapshot, 510 s after it began (0 of 4 pods bound)"),
            std::string::npos) << j["warnings"];
}

// #28: Kueue pod groups by their label, Workloads as the admission record.
TEST(AdmissionCli, TwoKueuePodGroupsAreTwoGangsWithTheirWorkloads) {
  json j = admission_json({fixture("kueue-two-groups")});
  ASSERT_EQ(j["jobs"].size(), 2u);
  const json& a = j["jobs"][0];
  const json& b = j["jobs"][1];
  EXPECT_EQ(a["group"], "train-a");
  EXPECT_EQ(b["group"], "train-b");
  for (const json* job : {&a, &b}) {
    EXPECT_EQ((*job)["scheduler"], "kueue");
    EXPECT_EQ((*job)["pod_count"], 3);
    EXPECT_EQ((*job)["min_member_source"], "kueue total count");
    EXPECT_EQ((*job)["pods"].size(), 3u);
  }
  EXPECT_EQ(a["pod_count_source"], "Workload train-a");
  EXPECT_EQ(a["workload"], "train-a");
  EXPECT_EQ(a["time_to_full_gang_s"], 6.0);
  ASSERT_EQ(a["workload_conditions"].size(), 3u);
  EXPECT_EQ(a["workload_conditions"][0]["condition"], "QuotaReserved");
  EXPECT_EQ(a["workload_conditions"][2]["time"], "2026-12-01T10:00:30Z");
  EXPECT_EQ(b["full_gang_at"], nullptr);
  EXPECT_TRUE(b["attempts"][0]["pending"].get<bool>());
  EXPECT_EQ(b["stranded_gpu_s"], 0.0);  // gated: nothing bound, nothing stranded
  EXPECT_EQ(j["warnings"].dump().find("no PodGroup"), std::string::npos) << j["warnings"];
}

// #27 item 7: identities, orders and times that cannot be are refused, naming the file and the field.
TEST(AdmissionCli, ImpossibleRecordsAreRefused) {
  fs::path d = scratch("impossible");
  auto pod = [](const std::string& name, const std::string& uid, const std::string& created, const std::string& conds) {
    return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"b","uid":")" + uid + R"(","creationTimestamp":")" + created +
           R"("},"status":{"conditions":[)" + conds + "]}}";
  };
  auto cond = [](const char* type, const char* at) {
    return std::string(R"({"type":")") + type + R"(","status":"True","lastTransitionTime":")" + at + "\"}";
  };
  auto list = [](const std::string& items) { return R"({"kind":"List","items":[)" + items + "]}"; };
  const std::string ok = "2026-12-01T10:00:00Z";
  auto pg = [](const char* uid) {
    return std::string(R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":"g","namespace":"b","uid":")") + uid +
           R"(","creationTimestamp":"2026-12-01T10:00:00Z"},"spec":{"minMember":2}})";
  };
  struct Case {
    std::string name, text, expect;
  } cases[] = {
      {"dupuid.json", list(pod("a", "u1", ok, "") + "," + pod("b", "u1", ok, "")), "items[1] (Pod b/b): metadata.uid 'u1' is also the uid of pod b/a"},
      {"twice.json", list(pod("a", "u1", ok, "") + "," + pod("a", "u1", ok, "")), "pod b/a is listed twice in this file"},
      {"boundbefore.json", list(pod("a", "u1", ok, cond("PodScheduled", "2019-12-01T10:00:00Z"))),
       "PodScheduled 2019-12-01T10:00:00Z is 220924800 s before metadata.creationTimestamp"},
      {"readybefore.json", list(pod("a", "u1", ok, cond("PodScheduled", "2026-12-01T11:00:00Z") + "," + cond("Ready", "2026-12-01T10:00:00Z"))),
       "Ready 2026-12-01T10:00:00Z is 3600 s before PodScheduled"},
      {"feb31.json", list(pod("a", "u1", "2026-02-31T10:00:00Z", "")), "metadata.creationTimestamp '2026-02-31T10:00:00Z' is not an RFC 3339 time"},
      {"offset.json", list(pod("a", "u1", "2026-12-01T10:00:00+99:99", "")), "'2026-12-01T10:00:00+99:99' is not an RFC 3339 time"},
      {"year0.json", list(pod("a", "u1", "0000-12-01T10:00:00Z", "")), "'0000-12-01T10:00:00Z' is not an RFC 3339 time"},
      {"twogroups.json", list(pg("p1") + "," + pg("p2")), "items[1] (PodGroup b/g): a second PodGroup b/g in the snapshot"},
  };
  for (const auto& c : cases) {
    std::string path = (d / c.name).string();
    write_text_file(path, c.text);
    auto r = run_admission({path});
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.out << r.err;
    EXPECT_EQ(r.err.rfind("placebench: " + path + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Within the clocks' tolerance (5 s) the order is taken up, with a warning.
  std::string skew = (d / "skew.json").string();
  write_text_file(skew, list(pod("a", "u1", ok, cond("PodScheduled", "2026-12-01T09:59:58Z"))));
  json j = admission_json({skew});
  EXPECT_EQ(j["jobs"][0]["pods"][0]["scheduled"], ok);
  EXPECT_NE(j["warnings"].dump().find("PodScheduled is 2 s before metadata.creationTimestamp"), std::string::npos) << j["warnings"];
  fs::remove_all(d);
}

// #28 item 5: gates for CI, exit 3 when exceeded and when a figure that can still grow is under its limit.
TEST(AdmissionCli, GatesExitThreeWhenExceededOrUnknown) {
  auto whole = run_admission({fixture("admitted-whole"), "--max-stranded", "0", "--max-time-to-gang", "10m", "--max-cleanup", "1m"});
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_NE(whole.out.find("gate --max-time-to-gang bench/gang4-job-gang4: ok"), std::string::npos) << whole.out;
  auto slow = run_admission({fixture("admitted-whole"), "--max-time-to-gang", "4m", "--json"});
  EXPECT_EQ(slow.exit_code, 3) << slow.err;
  json g = json::parse(slow.out)["gates"];
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0]["verdict"], "exceeded");
  EXPECT_EQ(g[0]["value"], 300.0);
  auto stranded = run_admission({fixture("volcano-restart"), "--max-stranded", "3000"});
  EXPECT_EQ(stranded.exit_code, 3);  // 2040 so far, and attempt 2 still pending: unknown, not a pass
  EXPECT_NE(stranded.out.find("unknown"), std::string::npos) << stranded.out;
  auto cleanup = run_admission({fixture("volcano-restart"), "--max-cleanup", "60s"});
  EXPECT_EQ(cleanup.exit_code, 3);
  EXPECT_NE(cleanup.out.find("exceeded (longest cleanup (s) 85 > limit 60)"), std::string::npos) << cleanup.out;
  auto bad = run_admission({fixture("admitted-whole"), "--max-time-to-gang", "soon"});
  EXPECT_EQ(bad.exit_code, 2);
}

// #28 item 5: `cost --from` reads the admission JSON: one incident per job that stranded GPU time.
TEST(AdmissionCli, CostReadsTheAdmissionJson) {
  fs::path d = scratch("cost");
  const std::string out = (d / "admission.json").string();
  ASSERT_EQ(run_admission({fixture("volcano-restart"), "--out", out}).exit_code, 0);
  auto r = run_command({placebench_binary(), "cost", "--from", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(r.out);
  ASSERT_EQ(c["incidents"].size(), 1u);
  EXPECT_EQ(c["incidents"][0]["stranded_gpu_s"], 2040.0);
  EXPECT_EQ(c["incidents"][0]["outcome"], "pending");
  EXPECT_NE(c["incidents"][0]["source"].get<std::string>().find("job bench/trainer-job-trainer"), std::string::npos) << c;
  fs::remove_all(d);
}
