// `placebench collective --nccl-tests-json FILE`: the result in nccl-tests' own JSON layout (what
// `all_reduce_perf -J FILE` writes, JSON_FILE_VERSION 3), so dashboards that parse nccl-tests read
// placebench unchanged. Field names and nesting are nccl-tests' (src/util.cu); placebench adds only
// schema_version, host, generated_at and placebench_version at the top level. docs/collectives.md
// lists every field and where its value comes from.
#pragma once
#include <string>
#include <vector>

#include "placebench/harness/collectives_driver/collective_report.h"

namespace placebench::harness {

// What nccl-tests records beside the results, gathered by the command (fixed in tests).
struct NcclTestsRunInfo {
  std::string start_time, end_time;  // "%Y-%m-%d %H:%M:%S" (nccl-tests' format), here in UTC
  std::vector<std::string> args;     // the command line
  std::vector<std::string> env;      // NAME=value of the NCCL_* variables only (never the whole environment)
  int nccl_version = 0;              // the loaded NCCL's version code; 0 with the MPI backend
};

// The whole document (rows merged per op, type and size: out_of_place and in_place side by side, null
// when that mode was not run), text ending in a newline. nccl-tests runs one collective per file, so
// the report must hold one op (the command refuses more).
std::string render_nccl_tests_json(const CollectiveReport& report, const NcclTestsRunInfo& info);

// "YYYY-MM-DD HH:MM:SS" of now, UTC.
std::string nccl_tests_time_now();

}  // namespace placebench::harness
