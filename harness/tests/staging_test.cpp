// Staging arithmetic and the host backend's data check, without the CLI.
#include <gtest/gtest.h>

#include <stdexcept>

#include "fixtures.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/workloads/staging.h"

using namespace placebench::harness;

TEST(Staging, BandwidthArithmetic) {
  EXPECT_DOUBLE_EQ(staging_gbps(1'000'000'000, 1, 1.0, false), 1.0);
  EXPECT_DOUBLE_EQ(staging_gbps(4u << 20, 8, 0.002, false), (4.0 * (1 << 20)) * 8 / 0.002 / 1e9);
  EXPECT_DOUBLE_EQ(staging_gbps(1'000'000, 10, 0.01, true), 2.0);  // both directions' bytes
  EXPECT_THROW(staging_gbps(1, 1, 0.0, false), std::invalid_argument);
}

TEST(Staging, HostBackendRowsOnThisMachine) {
  Inventory inv = build_inventory(Topology::load_live());
  StagingConfig cfg;
  cfg.backend = "host";
  cfg.placement.arms = {Arm::kLocal};
  cfg.sizes = {4096, 1 << 20};
  cfg.samples = 3;
  StagingResult r = run_staging(inv, cfg);
  EXPECT_EQ(r.backend, "host");
  ASSERT_EQ(r.rows.size(), 2u);
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.gbps.size(), 3u);
    EXPECT_GT(row.gbps_median, 0);
    EXPECT_LE(row.gbps_p10, row.gbps_median);
    EXPECT_LE(row.gbps_median, row.gbps_p90);
    EXPECT_EQ(row.placement.status, "verified");
  }
}

TEST(Staging, ImpossibleCombinationsAreInputErrors) {
  Inventory inv = build_inventory(Topology::load_live());
  StagingConfig cfg;
  cfg.backend = "host";
  cfg.placement.arms = {Arm::kLocal};
  cfg.sizes = {4096};
  cfg.memory = HostMemory::kHostAlloc;
  EXPECT_THROW(run_staging(inv, cfg), InputError);
  cfg.memory = HostMemory::kPinned;
  cfg.sizes.clear();
  EXPECT_THROW(run_staging(inv, cfg), InputError);
}
