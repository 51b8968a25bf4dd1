// Without a CUDA driver (CI, this build machine) the CUDA backend and the
// device functions fail with a one-line NoDeviceError, and the disk cache
// (which needs no GPU) keeps working.
#include <gtest/gtest.h>

#include "runtime/KernelCache.h"
#include "runtime/cuda/CudaBackend.h"
#include "ufjit/cache.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

TEST(CudaWithoutDriver, BackendFactoryThrowsNoDeviceErrorWithAOneLineReason) {
  if (device_info().available) {
    GTEST_SKIP() << "a CUDA device is present on this machine";
  }
  KernelCache cache;
  BackendConfig config;
  config.cache = &cache;
  try {
    make_cuda_backend(config);
    FAIL() << "make_cuda_backend succeeded without a driver";
  } catch (const NoDeviceError &e) {
    const std::string what = e.what();
    EXPECT_FALSE(what.empty());
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find("libcuda.so.1"), std::string::npos) << what;
  }
}

TEST(CudaWithoutDriver, EveryAttemptGivesTheSameReasonAsDeviceInfo) {
  DriverInfo info = device_info();
  if (info.available) {
    GTEST_SKIP() << "a CUDA device is present on this machine";
  }
  KernelCache cache;
  BackendConfig config;
  config.cache = &cache;
  std::vector<std::string> reasons;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      make_cuda_backend(config);
    } catch (const NoDeviceError &e) {
      reasons.push_back(e.what());
    }
  }
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0], info.reason);
  EXPECT_EQ(reasons[1], info.reason);
}

}  // namespace
}  // namespace ufjit::runtime
