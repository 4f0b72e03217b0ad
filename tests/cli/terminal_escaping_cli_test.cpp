// Text from inputs reaches the terminal escaped (terminal_text.h): a host name, a thread name that the
// audited process set, or a class name holding an escape sequence or a line break prints as \x1b, \n,
// never raw (no recoloured terminal, no fake table row); `check --markdown` shows HTML as text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "fixtures.h"
#include "fleet_fixtures.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
namespace fs = std::filesystem;

namespace {

const std::string kEvil = "evil\x1b[2J\x1b]0;owned\x07\nnode-x  pass";

std::string scratch(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/pb-escaping-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool has_raw_control(const std::string& text) {
  for (char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

}  // namespace

TEST(TerminalEscaping, FleetHostNamesAreEscaped) {
  std::string dir = scratch("fleet");
  for (const char* host : {"a", "b"}) write_synthetic_node(dir + "/" + host, SyntheticNode{host});
  copy_synthetic_node(dir + "/a", dir + "/evil", kEvil);
  CommandResult r = run_command({placebench_binary(), "fleet", dir + "/a", dir + "/b", dir + "/evil"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_FALSE(has_raw_control(r.out)) << r.out;
  EXPECT_FALSE(has_raw_control(r.err)) << r.err;
  EXPECT_NE(r.out.find("evil\\x1b[2J\\x1b]0;owned\\x07\\nnode-x  pass"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nnode-x  pass"), std::string::npos) << "a fake row: " << r.out;
  fs::remove_all(dir);
}

TEST(TerminalEscaping, AuditThreadNamesAreEscaped) {
  std::string dir = scratch("audit");
  fs::copy(std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/audit/proc", dir + "/proc", fs::copy_options::recursive);
  write_text_file(dir + "/proc/4242/task/4242/comm", kEvil + "\n");
  CommandResult r = run_command({placebench_binary(), "audit", "--no-managers", "--proc-root", dir + "/proc", "--topology",
                                 own_topology("2s2n-4gpu.xml"), "--pid", "4242"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_FALSE(has_raw_control(r.out)) << r.out;
  EXPECT_NE(r.out.find("evil\\x1b[2J"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(TerminalEscaping, CheckClassNamesAreEscapedInTheTableAndHtmlInMarkdown) {
  std::string dir = scratch("check");
  const std::string ref = dir + "/ref.yaml", md = dir + "/summary.md";
  write_text_file(ref, "schema_version: 1\nreferences:\n"
                       "  - {class: \"<img src=x onerror=alert(1)>\\e[31m\", arm: local, metric: median, target: 3.2, lower: -0.9, "
                       "upper: 9, unit: us}\n");
  CommandResult r = run_command({placebench_binary(), "check", std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/results/tiny-run",
                                 "--reference", ref, "--markdown", md});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;
  EXPECT_FALSE(has_raw_control(r.out)) << r.out;
  EXPECT_NE(r.out.find("\\x1b[31m"), std::string::npos) << r.out;
  const std::string summary = read_text_file(md);
  EXPECT_EQ(summary.find("<img"), std::string::npos) << summary;
  EXPECT_NE(summary.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << summary;
  EXPECT_FALSE(has_raw_control(summary)) << summary;
  fs::remove_all(dir);
}
