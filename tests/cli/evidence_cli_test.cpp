// Evidence that identifies itself: every JSON output of plan, topo, verify, feasible, cost and decide
// carries schema_version, host, generated_at (UTC) and placebench_version; check's JUnit has hostname,
// timestamp and time; verify and feasible write --out whole, refusing an existing file; cost --from skips
// an empty file with one warning and counts only gangs that stranded GPU time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/" + rel; }
std::string fresh(const std::string& name) {
  std::string d = ::testing::TempDir() + "/pb-evidence-" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void expect_evidence(const json& j, const std::string& what) {
  ASSERT_TRUE(j.is_object()) << what;
  EXPECT_TRUE(j.contains("schema_version") && j["schema_version"].is_number_integer()) << what;
  EXPECT_TRUE(j.contains("host") && j["host"].is_string() && !j["host"].get<std::string>().empty()) << what;
  EXPECT_TRUE(j.contains("placebench_version") && j["placebench_version"].is_string()) << what;
  ASSERT_TRUE(j.contains("generated_at") && j["generated_at"].is_string()) << what;
  EXPECT_TRUE(std::regex_match(j["generated_at"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << what;
}

json stdout_json_of(const std::vector<std::string>& args, int expected_exit) {
  std::vector<std::string> argv{placebench_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv, 60);
  EXPECT_EQ(r.exit_code, expected_exit) << args[0] << ": " << r.err;
  return json::parse(r.out);
}
}  // namespace

TEST(EvidenceCli, EveryJsonOutputIdentifiesItself) {
  std::string topo = fixture("topologies/2s2n-4gpu.xml");
  expect_evidence(stdout_json_of({"plan", "--topology", topo, "--json"}, 0), "plan");
  expect_evidence(stdout_json_of({"topo", "--topology", topo, "--json"}, 0), "topo");
  expect_evidence(stdout_json_of({"feasible", "--inventory", fixture("decisions/cluster-stranded.yaml"), "--json"}, 1), "feasible");
  expect_evidence(stdout_json_of({"cost", "--gpus", "8", "--wait", "12m", "--json"}, 0), "cost");
  expect_evidence(stdout_json_of({"decide", fixture("decisions/run-basic"), "--json"}, 0), "decide");
  auto v = run_command({placebench_binary(), "verify", "--arm", "unpinned", "--bytes", "4K", "--json"}, 60);
  ASSERT_TRUE(v.exit_code == 0 || v.exit_code == 1) << v.err;
  expect_evidence(json::parse(v.out), "verify");
}

TEST(EvidenceCli, VerifyOutIsWrittenWholeAndNeverReplaced) {
  std::string dir = fresh("verify");
  std::string out = dir + "/verify.json";
  auto r = run_command({placebench_binary(), "verify", "--arm", "unpinned", "--bytes", "4K", "--out", out}, 60);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  json j = json::parse(read_text_file(out));
  expect_evidence(j, "verify --out");
  EXPECT_EQ(j["arm"], "unpinned");
  EXPECT_FALSE(fs::exists(out + ".tmp"));
  std::string before = read_text_file(out);
  auto again = run_command({placebench_binary(), "verify", "--arm", "unpinned", "--bytes", "4K", "--out", out}, 60);
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("placebench: --out " + out + ": already exists"), std::string::npos) << again.err;
  EXPECT_EQ(read_text_file(out), before);
  auto nodir = run_command({placebench_binary(), "verify", "--arm", "unpinned", "--bytes", "4K", "--out", dir + "/no/such/f.json"}, 60);
  EXPECT_EQ(nodir.exit_code, 2) << nodir.err;
  EXPECT_NE(nodir.err.find("is not a writable directory"), std::string::npos) << nodir.err;
}

TEST(EvidenceCli, FeasibleOutMatchesItsJsonAndIsNotReplaced) {
  std::string out = fresh("feasible") + "/feasible.json";
  std::vector<std::string> args{placebench_binary(), "feasible", "--inventory", fixture("decisions/cluster-stranded.yaml"), "--out", out};
  auto r = run_command(args, 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the fixture's job is not runnable: the file is written all the same
  json j = json::parse(read_text_file(out));
  expect_evidence(j, "feasible --out");
  EXPECT_EQ(j["job_runnable"], false);
  EXPECT_NE(r.out.find("Verdict"), std::string::npos) << r.out;  // the table still goes to stdout
  auto again = run_command(args, 60);
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_EQ(json::parse(read_text_file(out)), j);
  // A bad inventory writes nothing.
  std::string out2 = fs::path(out).parent_path().string() + "/bad.json";
  auto bad = run_command({placebench_binary(), "feasible", "--inventory", fixture("decisions/bad-negative.yaml"), "--out", out2}, 60);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_FALSE(fs::exists(out2));
}

TEST(EvidenceCli, CheckJunitHasHostnameTimestampAndTime) {
  std::string junit = fresh("junit") + "/check.xml";
  auto r = run_command({placebench_binary(), "check", fixture("results/tiny-run"), "--reference", fixture("references/tiny-pass.yaml"),
                        "--junit", junit}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string xml = read_text_file(junit);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(xml, m, std::regex(R"re(<testsuite [^>]*hostname="([^"]+)" timestamp="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)" time="(\d+\.\d{3})")re")))
      << xml;
  EXPECT_FALSE(m[1].str().empty());
  EXPECT_LT(std::stod(m[3].str()), 60.0);
  EXPECT_TRUE(std::regex_search(xml, std::regex(R"re(<testsuites [^>]*time="\d+\.\d{3}")re"))) << xml;
}

TEST(EvidenceCli, CostSkipsAnEmptyFileAndCountsOnlyStrandingGangs) {
  std::string dir = fresh("cost");
  write_text_file(dir + "/verify.json", "");  // a step that failed before writing (`verify > file`)
  write_text_file(dir + "/gang-late.json", R"({"schema_version": 1, "outcome": "complete", "stranded_gpu_s": 600.0})");
  write_text_file(dir + "/gang-on-time.json", R"({"schema_version": 1, "outcome": "complete", "stranded_gpu_s": 0.0})");
  auto r = run_command({placebench_binary(), "cost", "--from", dir, "--json"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("placebench cost: warning: " + dir + "/verify.json: skipped ("), std::string::npos) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["incidents"].size(), 1u);  // the on-time gang is not an incident
  EXPECT_EQ(j["on_time_gangs"], 1);
  EXPECT_DOUBLE_EQ(j["stranded_gpu_min"].get<double>(), 10.0);  // 600 GPU-s, not (600 + 0) / 2
  auto text = run_command({placebench_binary(), "cost", "--from", dir}, 60);
  EXPECT_NE(text.out.find("1 gang incident(s), 600.0 GPU-s stranded in total, mean 600.0, worst 600.0 (1 gang(s) on time"),
            std::string::npos) << text.out;
  // Only on-time gangs: no incident, nothing stranded (not an error).
  fs::remove(dir + "/gang-late.json");
  auto none = run_command({placebench_binary(), "cost", "--from", dir}, 60);
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("no gang stranded GPU time (1 gang(s) on time"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("per incident: 0.0 GPU-min"), std::string::npos) << none.out;
}
