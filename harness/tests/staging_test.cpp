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

// Issue 16 defect 9: a hostalloc arm copies from cudaHostAlloc memory, so it does not also place (and
// record) a NumaBuffer of the largest size; every other kind copies from the placed buffer itself.
TEST(Staging, HostallocPlacesOnePageNotTheLargestSize) {
  constexpr std::size_t kBig = std::size_t{256} << 20;
  EXPECT_EQ(staging_placed_bytes(HostMemory::kHostAlloc, true, kBig), 4096u);
  EXPECT_EQ(staging_placed_bytes(HostMemory::kHostAlloc, true, 512), 512u);
  for (HostMemory m : {HostMemory::kPinned, HostMemory::kPageable, HostMemory::kRegistered})
    EXPECT_EQ(staging_placed_bytes(m, true, kBig), kBig) << host_memory_name(m);
  EXPECT_EQ(staging_placed_bytes(HostMemory::kPinned, false, kBig), kBig);
}

// Defect 8: host-backend rows carry no CUDA context node (only cuda rows do, one fresh context per arm).
TEST(Staging, HostRowsHaveNoCudaContextNode) {
  StagingConfig cfg;
  cfg.backend = "host";
  cfg.sizes = {4096};
  cfg.samples = 1;
  cfg.copies_per_sample = 1;
  cfg.placement.arms = {Arm::kUnpinned};
  Inventory inv = build_inventory(Topology::load_live());
  StagingResult r = run_staging(inv, cfg);
  ASSERT_FALSE(r.rows.empty());
  EXPECT_FALSE(r.rows[0].cuda_context_node.has_value());
  EXPECT_FALSE(staging_to_json(r)["rows"][0].contains("cuda_context_node"));
}
