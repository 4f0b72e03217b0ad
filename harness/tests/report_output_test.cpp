// The one path of a command's result (cli/json_output.h): the evidence stamp and the JSON forms, what is
// printed (JSON, table or nothing), which printers are called, and the files written beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "placebench/harness/cli/json_output.h"

namespace placebench::harness {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  std::string d = ::testing::TempDir() + "/pb-report-output-" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What emit_report prints, and how often each printer was called.
struct Emitted {
  std::string out;
  int json_calls = 0, table_calls = 0;
};

Emitted emit(const ReportTargets& to) {
  Emitted e;
  ::testing::internal::CaptureStdout();
  emit_report(to, {[&] {
                     ++e.json_calls;
                     return json_text({{"schema_version", 1}, {"name", "a"}});
                   },
                   [&] {
                     ++e.table_calls;
                     return std::string("name\ta\x1b[2J\n");
                   }});
  e.out = ::testing::internal::GetCapturedStdout();
  return e;
}

TEST(ReportOutput, JsonTextStampsEvidenceAndKeepsAModulesOwnStamp) {
  nlohmann::json j = nlohmann::json::parse(json_text({{"schema_version", 1}}));
  EXPECT_TRUE(j.contains("host") && j.contains("generated_at") && j.contains("placebench_version")) << j.dump();
  j = nlohmann::json::parse(json_text({{"schema_version", 1}, {"host", "node7"}, {"generated_at", "then"}}));
  EXPECT_EQ(j["host"], "node7");
  EXPECT_EQ(j["generated_at"], "then");
  const nlohmann::json plain = {{"classes", nlohmann::json::array()}, {"complete", true}};
  EXPECT_EQ(json_text(plain, JsonForm::kUnstamped), plain.dump(2) + "\n");
}

TEST(ReportOutput, BytesThatAreNotUtf8AreAnErrorUnlessReplaced) {
  const nlohmann::json bad = {{"name", "gpu\xff"}};
  EXPECT_THROW(json_text(bad), nlohmann::json::type_error);
  EXPECT_NE(json_text(bad, JsonForm::kStampedReplacingBadUtf8).find("gpu\xEF\xBF\xBD"), std::string::npos);
}

TEST(ReportOutput, PrintsTheEscapedTableOrTheJsonAndCallsOnlyThatPrinter) {
  Emitted table = emit(ReportTargets::printing(false));
  EXPECT_EQ(table.out, "name\\ta\\x1b[2J\n");
  EXPECT_EQ(table.json_calls, 0);
  Emitted json = emit(ReportTargets::printing(true));
  EXPECT_EQ(nlohmann::json::parse(json.out)["name"], "a");
  EXPECT_EQ(json.table_calls, 0);
}

TEST(ReportOutput, ACommandWithOutMakesItsJsonOnlyWhenOutIsGiven) {
  Emitted e = emit(ReportTargets::with_out(check_output("--out", "", false), false));
  EXPECT_EQ(e.json_calls, 0);
  EXPECT_EQ(e.table_calls, 1);
  const std::string path = temp_dir("given") + "/r.json";
  Emitted given = emit(ReportTargets::with_out(check_output("--out", path, false), false));
  EXPECT_EQ(given.json_calls, 1);
  EXPECT_EQ(given.table_calls, 1);
}

TEST(ReportOutput, OutIsWrittenWholeAndTheTableStillPrinted) {
  const std::string path = temp_dir("out") + "/r.json";
  Emitted e = emit(ReportTargets::with_out(check_output("--out", path, false), false));
  EXPECT_EQ(nlohmann::json::parse(read_file(path))["name"], "a");
  EXPECT_EQ(e.out, "name\\ta\\x1b[2J\n");
}

TEST(ReportOutput, AnOutputOnStandardOutputIsTheCommandsOutput) {
  Emitted dash = emit(ReportTargets::with_out(check_output("--out", "-", false), true));
  EXPECT_EQ(nlohmann::json::parse(dash.out)["name"], "a");  // once: not printed again for --json
  ReportTargets file_on_stdout = ReportTargets::printing(false);
  file_on_stdout.files = {{check_output("--junit", "-", false), [] { return std::string("<xml/>\n"); }}};
  EXPECT_EQ(emit(file_on_stdout).out, "<xml/>\n");
  ReportTargets taken = ReportTargets::printing(true);
  taken.stdout_taken = true;
  Emitted nothing = emit(taken);
  EXPECT_EQ(nothing.out, "");
  EXPECT_EQ(nothing.json_calls + nothing.table_calls, 0);
}

TEST(ReportOutput, OtherFilesAreWrittenInOrderAndOnlyWhenGiven) {
  const std::string dir = temp_dir("files");
  ReportTargets to = ReportTargets::printing(false);
  int calls = 0;
  to.files = {{check_output("--junit", dir + "/a.xml", false), [&] { return std::to_string(++calls) + "\n"; }},
              {check_output("--html", "", false), [&] { return std::to_string(++calls) + "\n"; }},
              {check_output("--markdown", dir + "/b.md", false), [&] { return std::to_string(++calls) + "\n"; }}};
  Emitted e = emit(to);
  EXPECT_EQ(read_file(dir + "/a.xml"), "1\n");
  EXPECT_EQ(read_file(dir + "/b.md"), "2\n");
  EXPECT_EQ(e.table_calls, 1);
  EXPECT_EQ(e.json_calls, 0);
}

}  // namespace
}  // namespace placebench::harness
