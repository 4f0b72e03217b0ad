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
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("no PodGroup"), std::string::npos);
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
  EXPECT_EQ(job["stranded_gpu_s"], 0.0);
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
