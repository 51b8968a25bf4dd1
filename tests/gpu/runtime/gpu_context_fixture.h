// The fixture of the runtime's own GPU tests: device 0's primary context,
// made current; every test skips with a one-line reason without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaDriver.h"

namespace ufjit::cuda {

class GpuContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!driver_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    context_ = std::make_shared<CudaContext>(0);
    context_->make_current();
  }
  std::shared_ptr<const CudaContext> context_;
};

}  // namespace ufjit::cuda
