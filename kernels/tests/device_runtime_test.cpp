#include "placebench/kernels/device_runtime.h"

#include <gtest/gtest.h>

using namespace placebench::kernels;

TEST(DeviceRuntime, FormatsCudaVersions) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(0), "none");
}

TEST(DeviceRuntime, NormalizesPciBusIds) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:34:00.0"), "0000:34:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0003:01:00.0"), "0003:01:00.0");
}

TEST(DeviceRuntime, QueryNeverThrowsAndExplainsItself) {
  DeviceRuntime rt = query_device_runtime();
  EXPECT_FALSE(rt.status.empty());
  if (!rt.usable()) {
    EXPECT_TRUE(rt.devices.empty());
  }
  if (rt.status == "ok") {
    EXPECT_GT(rt.driver_version, 0);
  }
}
