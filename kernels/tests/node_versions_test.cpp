// The NVIDIA driver's version read from /proc/driver/nvidia/version as nvidia.ko writes it (fixtures of
// both flavours, tests/fixtures/proc/nvidia-version/), absent or unrecognised files as no version, and the
// kernel release as the kernel itself reports it.
#include "placebench/kernels/node_versions.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace placebench::kernels;

namespace {

const std::string kFixtures = std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/proc/nvidia-version/";

}  // namespace

TEST(NodeVersions, ReadsTheDriverVersionOfEachFlavour) {
  EXPECT_EQ(nvidia_driver_version(kFixtures + "proprietary-550.54.15"), "550.54.15");
  EXPECT_EQ(nvidia_driver_version(kFixtures + "open-560.28.03"), "560.28.03");
  EXPECT_EQ(nvidia_driver_version(kFixtures + "open-aarch64-570.124.06"), "570.124.06");
}

TEST(NodeVersions, NoDriverOrNoVersionIsAbsentNeverAGuess) {
  EXPECT_EQ(nvidia_driver_version(kFixtures + "does-not-exist"), std::nullopt);
  EXPECT_EQ(nvidia_driver_version(kFixtures), std::nullopt);  // a directory
  EXPECT_EQ(nvidia_driver_version(kFixtures + "no-nvrm-line"), std::nullopt);
  EXPECT_EQ(nvidia_driver_version(kFixtures + "no-version"), std::nullopt);
}

TEST(NodeVersions, ParsesOnlyWhereTheFormatPutsTheVersion) {
  EXPECT_EQ(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  177.80  Wed Oct  1 2008\n"), "177.80");
  EXPECT_EQ(parse_nvidia_proc_version("GCC version:  gcc 12\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05"),
            "535.104.05");
  // A number elsewhere on the line (the GCC version, the date) is not the driver's.
  EXPECT_EQ(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  Tue Mar  5 2024 12.2.0\n"),
            std::nullopt);
  EXPECT_EQ(parse_nvidia_proc_version("GCC version:  gcc version 12.2.0\n"), std::nullopt);
  EXPECT_EQ(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.\n"), std::nullopt);
  EXPECT_EQ(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550\n"), std::nullopt);
  EXPECT_EQ(parse_nvidia_proc_version(""), std::nullopt);
}

TEST(NodeVersions, KernelReleaseIsTheKernelsOwn) {
  std::optional<std::string> release = kernel_release();
  ASSERT_TRUE(release);
  std::ifstream osrelease("/proc/sys/kernel/osrelease");
  if (!osrelease) GTEST_SKIP() << "no /proc/sys/kernel/osrelease to compare with";
  std::string expected;
  std::getline(osrelease, expected);
  EXPECT_EQ(*release, expected);
}
