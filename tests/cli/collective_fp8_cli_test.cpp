// `placebench collective --types f8e4m3|f8e5m2` under the MPI backend (one rank on purpose): refused with
// one line saying MPI has no fp8 type and what to use instead (exit 2), never a run of wrong rows.
#include <gtest/gtest.h>

#include "run_command.h"

using namespace placebench::testing;

TEST(CollectiveFp8Cli, MpiBackendRefusesFp8WithOneLine) {
  for (const char* type : {"f8e4m3", "f8e5m2", "float,f8e5m2"}) {
    auto r = run_command({placebench_binary(), "collective", "--backend", "mpi", "--types", type, "--sizes", "8", "--json",
                             "--allow-single-rank"});
    if (r.err.find("needs the MPI backend") != std::string::npos) GTEST_SKIP() << "built without MPI";
    EXPECT_EQ(r.exit_code, 2) << type << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("MPI has no fp8 type"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--backend nccl with NCCL 2.24 or newer"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "no rows for a refused type";
  }
}
