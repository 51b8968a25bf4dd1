// The context warm-up (runtime/cuda/ContextWarmUp.h) on the device of this
// host: the embedded cubin for its compute capability loads through
// load_kernel with its launch hint read like a real entry's, its launch and
// copies succeed, and a kernel loaded after it runs. Skips without a GPU.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "runtime/cuda/ContextWarmUp.h"
#include "runtime/cuda/CudaModule.h"
#include "tests/gpu/runtime/gpu_context_fixture.h"

namespace ufjit::cuda {
namespace {

using GpuContextWarmUp = GpuContextTest;

TEST_F(GpuContextWarmUp, EmbeddedCubinForThisDeviceLoadsLaunchesAndCopies) {
  const DeviceProperties &props = context_->properties();
  ASSERT_NE(warm_up_cubin_for(warm_up_cubins(), props.cc_major, props.cc_minor), nullptr)
      << "no embedded warm-up cubin runs on " << props.arch();
  std::shared_ptr<CudaKernel> kernel = warm_up_context(context_);
  ASSERT_NE(kernel, nullptr);
  EXPECT_NE(kernel->function, nullptr);
  EXPECT_EQ(kernel->geometry.elements_per_thread, 0u);  // a 1-byte hint: "the capped grid"
  EXPECT_GE(kernel->geometry.block, 32);
}

TEST_F(GpuContextWarmUp, KernelLoadedAfterTheWarmUpRuns) {
  std::shared_ptr<CudaKernel> warm = warm_up_context(context_);
  ASSERT_NE(warm, nullptr);
  const std::string ptx = ".version 7.8\n.target sm_75\n.address_size 64\n"
                          ".visible .entry seven(.param .u64 out)\n{\n .reg .b64 %rd<2>;\n .reg .b32 %r<2>;\n"
                          " ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n mov.b32 %r1, 7;\n"
                          " st.global.u32 [%rd1], %r1;\n ret;\n}\n";
  std::shared_ptr<CudaKernel> seven = load_kernel(context_, link_ptx(*context_, ptx, "seven.ptx"), "seven",
                                                  HintSource::None);
  const CudaDriver &drv = context_->drv();
  CUdeviceptr out = 0;
  ASSERT_EQ(drv.cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
  void *params[] = {&out};
  ASSERT_EQ(drv.cuLaunchKernel(seven->function, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  uint32_t value = 0;
  ASSERT_EQ(drv.cuMemcpyDtoHAsync_v2(&value, out, 4, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(drv.cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(value, 7u);
  EXPECT_EQ(drv.cuMemFree_v2(out), CUDA_SUCCESS);
}

}  // namespace
}  // namespace ufjit::cuda
