// The CUDA backend's interface on any machine: empty objects, argument errors and the message a caller
// gets when there is no backend or no GPU. The kernels themselves are checked in kernels_device_test.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "placebench/kernels/batch_checksum.h"
#include "placebench/kernels/compute.h"
#include "placebench/kernels/device_buffer.h"
#include "placebench/kernels/device_runtime.h"
#include "placebench/kernels/memory_kernels.h"

using namespace placebench::kernels;

TEST(DeviceApi, ReportsWhetherTheBackendIsBuilt) {
  EXPECT_EQ(cuda_backend_built(), static_cast<bool>(PLACEBENCH_HAVE_CUDA));
  EXPECT_EQ(cuda_backend_built(), query_device_runtime().built);
}

TEST(DeviceApi, EmptyBuffersNeedNoDevice) {
  DeviceBuffer empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  DeviceBuffer zero(0, 0);
  EXPECT_TRUE(zero.empty());
  DeviceBuffer moved(std::move(zero));
  EXPECT_TRUE(moved.empty());
}

TEST(DeviceApi, WithoutAGpuEveryDeviceOperationExplainsWhy) {
  if (query_device_runtime().usable()) GTEST_SKIP() << "a GPU is present: kernels_device_test covers it";
  try {
    DeviceBuffer buffer(4096, 0);
    FAIL() << "allocating device memory without a usable GPU did not throw";
  } catch (const CudaBackendNotBuilt& e) {
    EXPECT_FALSE(cuda_backend_built());
    EXPECT_NE(std::string(e.what()).find("CUDA backend not built"), std::string::npos) << e.what();
  } catch (const CudaError& e) {
    // The backend is built but the runtime refuses: the message names the error, the call and the place.
    EXPECT_TRUE(cuda_backend_built());
    EXPECT_NE(e.code(), 0);
    const std::string what = e.what();
    EXPECT_NE(what.find("CUDA error"), std::string::npos) << what;
    // The failing call and where it was made: "in cudaMalloc(&ptr_, size_bytes) at .../device_buffer.cpp:52".
    const std::regex call_and_place(R"( in cuda\w+\(.*\) at .*kernels/src/cuda/\w+\.(h|cpp):[0-9]+$)");
    EXPECT_TRUE(std::regex_search(what, call_and_place)) << what;
  }
  EXPECT_THROW(Stream stream(0), std::runtime_error);
}
