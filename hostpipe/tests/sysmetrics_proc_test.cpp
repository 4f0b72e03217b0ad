// Parsers of /proc text and the re-readable open file used at every sampler tick.
#include <gtest/gtest.h>

#include <fstream>

#include "placebench/hostpipe/sysmetrics/proc_readers.h"

using namespace placebench::hostpipe::sysmetrics;

TEST(SysmetricsProc, ParsesProcStatCpuLines) {
  ProcStat s = parse_proc_stat(
      "cpu  10 1 5 80 4 0 0 0 2 0\ncpu0 6 1 3 40 2 0 0 0 2 0\ncpu3 4 0 2 40 2 0 0 0 0 0\nintr 9 9 9\n"
      "cpu9 1 1 1 1 1 1 1 1 1 1\n");
  EXPECT_EQ(s.all.total, 100u);  // guest (2) is already in user: not added again
  EXPECT_EQ(s.all.busy, 16u);    // idle and iowait excluded
  ASSERT_EQ(s.per_cpu.size(), 4u);
  EXPECT_TRUE(s.present[0]);
  EXPECT_FALSE(s.present[1]);  // offline CPUs have no line
  EXPECT_TRUE(s.present[3]);
  EXPECT_EQ(s.per_cpu[0].busy, 10u);
  EXPECT_EQ(s.per_cpu[3].total, 48u);
  EXPECT_THROW(parse_proc_stat("intr 1 2 3\n"), std::runtime_error);
}

TEST(SysmetricsProc, ParsesOldKernelsWithFewerFields) {
  ProcStat s = parse_proc_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
  EXPECT_EQ(s.all.total, 10u);
  EXPECT_EQ(s.all.busy, 6u);
}

TEST(SysmetricsProc, ParsesPressure) {
  auto p = parse_pressure("some avg10=12.34 avg60=1.00 avg300=0.00 total=98765\nfull avg10=1.00 avg60=0 avg300=0 total=5\n");
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->some_avg10_pct, 12.34);
  EXPECT_EQ(p->some_total_us, 98765u);
  EXPECT_FALSE(parse_pressure("full avg10=1.00 total=5\n"));
  EXPECT_FALSE(parse_pressure(""));
}

TEST(SysmetricsProc, ParsesStatmAndMajorFaults) {
  EXPECT_EQ(parse_statm_resident_pages("100 42 3 4 0 5 0\n"), 42u);
  EXPECT_FALSE(parse_statm_resident_pages("100\n"));
  // The command name may hold spaces and ")": fields are counted after the last ')'.
  EXPECT_EQ(parse_stat_major_faults("7 (a) b) (c) R 1 7 7 0 -1 4194304 11 22 33 44 5 6\n"), 33u);
  EXPECT_FALSE(parse_stat_major_faults("7 (x) R 1 2\n"));
  EXPECT_FALSE(parse_stat_major_faults("no parenthesis"));
  EXPECT_EQ(parse_u64("  1234\n"), 1234u);
  EXPECT_FALSE(parse_u64("x"));
}

TEST(SysmetricsProc, ProcFileRereadsFromTheStart) {
  std::string path = testing::TempDir() + "/sysmetrics_proc_file";
  std::ofstream(path) << "first\n";
  ProcFile file(path);
  ASSERT_TRUE(file.is_open()) << file.error();
  std::string text;
  ASSERT_TRUE(file.read(text));
  EXPECT_EQ(text, "first\n");
  std::ofstream(path) << "second, longer\n";  // rewritten in place: the open file sees it
  ASSERT_TRUE(file.read(text));
  EXPECT_EQ(text, "second, longer\n");
  std::string big(100000, 'x');
  std::ofstream(path) << big;  // more than one read's buffer
  ASSERT_TRUE(file.read(text));
  EXPECT_EQ(text.size(), big.size());
}

TEST(SysmetricsProc, ProcFileReportsMissingFiles) {
  ProcFile file("/nonexistent/stat");
  EXPECT_FALSE(file.is_open());
  EXPECT_NE(file.error().find("/nonexistent/stat"), std::string::npos);
  std::string text = "stale";
  EXPECT_FALSE(file.read(text));
  EXPECT_TRUE(text.empty());
  EXPECT_FALSE(read_text_file("/nonexistent/stat"));
}

TEST(SysmetricsProc, ReadsTheLiveProcStat) {
  ProcFile file("/proc/stat");
  std::string text;
  ASSERT_TRUE(file.read(text)) << file.error();
  ProcStat first = parse_proc_stat(text);
  ASSERT_TRUE(file.read(text));  // a second read from offset 0 regenerates the content
  ProcStat second = parse_proc_stat(text);
  EXPECT_GT(first.all.total, 0u);
  EXPECT_GE(second.all.total, first.all.total);
}
