// `collective --sizes` larger than the node's memory (issue 27): refused in one line, exit 2, before MPI
// starts or any buffer is allocated (before: 1T was taken, allocated, and the process died, exit 1).
#include <gtest/gtest.h>

#include <algorithm>

#include "run_command.h"

using namespace placebench::testing;

TEST(CollectiveCli, SizesBeyondTheNodesMemoryAreExitTwoBeforeAnyAllocation) {
  for (const char* sizes : {"1T", "8,1T"}) {
    CommandResult r = run_command({placebench_binary(), "collective", "--backend", "mpi", "--sizes", sizes, "--allow-single-rank"}, 60);
    EXPECT_EQ(r.exit_code, 2) << sizes << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("--sizes ") + sizes + ": the largest size needs 2048.0 GiB per rank (send and receive "
                         "buffers), more than 80% of the "),
              std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  CommandResult big = run_command({placebench_binary(), "collective", "--sizes", "2T"}, 60);
  EXPECT_EQ(big.exit_code, 2) << big.err;
  EXPECT_NE(big.err.find("--sizes: size '2T' is more than the maximum 1T"), std::string::npos) << big.err;
}
