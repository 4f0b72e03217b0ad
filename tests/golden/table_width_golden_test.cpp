// Tables fit 100 columns by default (--wide has every column): every table line of the default-mode
// goldens -- a table's header and its rows, up to the prose after it (warnings, notes) -- is at most 100
// columns wide. Prose (the "In short" sentences, warnings) is not a table and may be longer.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "golden.h"

using placebench::golden::golden_path;
using placebench::golden::read_text;

namespace {

constexpr std::size_t kMaxColumns = 100;

// Columns of a line: its UTF-8 code points (every golden table is one character per column).
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char ch : line) n += (ch & 0xC0) != 0x80;
  return n;
}

struct TableGolden {
  const char* file;
  const char* header;  // how the table's header line starts
  const char* prose = nullptr;  // lines that start so are prose under a row (a check's reason), not columns
};

// The lines that end a table: prose, the next class, a blank line (a fleet node's reasons are its rows).
const std::regex kAfterTable(R"(^(  (warning|noise floor|plan|Recommendation): |Class |\(|In short|Results|suspects|warning: |skipped |$))");

}  // namespace

TEST(GoldenTableWidth, DefaultTablesFit100Columns) {
  const std::vector<TableGolden> goldens = {
      {"cli/compare-tiny-run.txt", "  arm "},
      {"cli/compare-mixed-run.txt", "  arm "},
      {"cli/compare-incomplete-run.txt", "  arm "},
      {"cli/fleet-one-slow.txt", "host "},
      {"cli/fleet-tiny-three-hosts.txt", "host "},
      {"cli/decide-run-basic.txt", "  Policy "},
      {"cli/decide-what-if.txt", "  Policy "},
      {"cli/plan-1n-cpu-degenerate.txt", "Arm "},
      {"cli/plan-2s2n-4gpu.txt", "Arm "},
      {"cli/queue-article-fragmented.txt", "  combination "},
      {"cli/check-tiny-pass.txt", "  result ", "         "},
      {"cli/check-tiny-fail.txt", "  result ", "         "},
      {"cli/check-mixed-control.txt", "  result ", "         "},
      {"cli/admission-admitted-whole.txt", "pod ", "  "},
      {"cli/admission-partial-waiting.txt", "pod ", "  "},
      {"cli/admission-kueue-two-groups.txt", "pod ", "  "},
      {"printers/staging.txt", "Arm "},
      {"printers/staging-degenerate.txt", "Arm "},
      {"printers/collective-mpi.txt", "op "},
      {"printers/collective-pace.txt", "op "},
      {"printers/collective-nccl-wrong.txt", "op "},
  };
  for (const auto& g : goldens) {
    std::istringstream in(read_text(golden_path(g.file)));
    int tables = 0;
    bool in_table = false;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.rfind(g.header, 0) == 0) {
        in_table = true;
        ++tables;
      } else if (in_table && std::regex_search(line, kAfterTable)) {
        in_table = false;
      }
      if (in_table && !(g.prose != nullptr && line.rfind(g.prose, 0) == 0)) {
        EXPECT_LE(columns(line), kMaxColumns) << g.file << ":" << n << " is " << columns(line) << " columns: " << line;
      }
    }
    EXPECT_GT(tables, 0) << g.file << " has no table starting '" << g.header << "'";
  }
}
