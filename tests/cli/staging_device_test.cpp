// `placebench staging --backend cuda` on a real GPU (registered only with PLACEBENCH_ENABLE_DEVICE_TESTING;
// there PLACEBENCH_REQUIRE_DEVICE=1 turns a missing GPU into a failure).
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "placebench/kernels/device_runtime.h"
#include "run_command.h"

using namespace placebench::testing;
using nlohmann::json;

TEST(StagingDevice, CudaBackendEveryMemoryKindAndDirection) {
  if (!placebench::kernels::query_device_runtime().usable()) {
    if (std::getenv("PLACEBENCH_REQUIRE_DEVICE")) FAIL() << "no usable CUDA device";
    GTEST_SKIP() << "no usable CUDA device";
  }
  for (const char* memory : {"pinned", "pageable", "hostalloc"}) {
    for (const char* dir : {"h2d", "d2h", "bidir"}) {
      auto r = run_command({placebench_binary(), "staging", "--backend", "cuda", "--arm", "local", "--memory", memory,
                            "--direction", dir, "--sizes", "4K,64M", "--samples", "3", "--json"},
                           300);
      ASSERT_EQ(r.exit_code, 0) << memory << " " << dir << ": " << r.err;
      json j = json::parse(r.out);
      EXPECT_EQ(j["backend"], "cuda");
      for (const auto& row : j["rows"]) {
        EXPECT_GT(row["gbps_median"].get<double>(), 0.0);
        EXPECT_EQ(row["placement"]["pinned"], std::string(memory) != "pageable");
      }
    }
  }
}
