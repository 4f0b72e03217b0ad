#include <gtest/gtest.h>

#include "placebench/collectives/mpi_info.h"
#include "placebench/collectives/nccl_library.h"

using namespace placebench::collectives;

TEST(NcclLibrary, FormatsBothVersionSchemes) {
  EXPECT_EQ(format_nccl_version(22803), "2.28.3");
  EXPECT_EQ(format_nccl_version(2708), "2.7.8");
  EXPECT_EQ(format_nccl_version(0), "not found");
}

TEST(NcclLibrary, AvailabilityAlwaysExplainsItself) {
  const auto& a = nccl_availability();
  EXPECT_FALSE(a.detail.empty());
  if (a.loaded) {
    EXPECT_GT(a.version, 0);
  }
  EXPECT_EQ(&a, &nccl_availability());  // loaded once
}

TEST(MpiInfo, ReportsALibrary) { EXPECT_FALSE(mpi_library_version().empty()); }
