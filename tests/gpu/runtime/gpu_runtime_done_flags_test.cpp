// Done flags (runtime/cuda/DoneFlags.h) on the device of this host: each
// flag is handed out once until released, a wait ends as soon as a kernel
// stores the flag (while that kernel still runs), and a wait that sees no
// flag falls back to the stream's synchronize and turns the flags off.
// Skips without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/DoneFlags.h"
#include "tests/gpu/runtime/gpu_context_fixture.h"

namespace ufjit::cuda {
namespace {

using GpuDoneFlags = GpuContextTest;

TEST_F(GpuDoneFlags, NoFlagBeforeThePageIsPrepared) {
  DoneFlags flags(context_);
  EXPECT_TRUE(flags.claim().empty());
  flags.prepare();
  EXPECT_FALSE(flags.claim().empty());
}

TEST_F(GpuDoneFlags, EachFlagIsHandedOutOnceUntilReleased) {
  DoneFlags flags(context_);
  flags.prepare();
  std::vector<DoneFlags::Flag> held;
  std::set<void *> addresses;
  for (int k = 0; k < DoneFlags::kFlags; ++k) {
    held.push_back(flags.claim());
    ASSERT_FALSE(held.back().empty()) << "flag " << k;
    addresses.insert(held.back().device());
  }
  EXPECT_EQ(addresses.size(), static_cast<std::size_t>(DoneFlags::kFlags));
  EXPECT_TRUE(flags.claim().empty());  // all taken: the caller synchronises instead
  void *released = held.back().device();
  held.pop_back();
  DoneFlags::Flag again = flags.claim();
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again.device(), released);
}

TEST_F(GpuDoneFlags, AWaitEndsWhenTheKernelStoresTheFlagWhileItStillRuns) {
  // Stores the flag as an entry does, then keeps running for 50 ms: the
  // wait must return on the flag, with the kernel still on the stream.
  const std::string ptx =
      ".version 7.8\n.target sm_75\n.address_size 64\n"
      ".visible .entry store_then_linger(.param .u64 done)\n{\n"
      " .reg .b64 %rd<6>;\n .reg .b32 %r<2>;\n .reg .pred %p;\n"
      " ld.param.u64 %rd1, [done];\n membar.sys;\n mov.b32 %r1, 1;\n st.volatile.global.u32 [%rd1], %r1;\n"
      " mov.u64 %rd2, %globaltimer;\n add.u64 %rd3, %rd2, 50000000;\n"
      "LINGER:\n mov.u64 %rd4, %globaltimer;\n setp.lt.u64 %p, %rd4, %rd3;\n @%p bra LINGER;\n ret;\n}\n";
  std::shared_ptr<CudaKernel> kernel =
      load_kernel(context_, link_ptx(*context_, ptx, "linger.ptx"), "store_then_linger", HintSource::None);
  DoneFlags flags(context_);
  flags.prepare();
  DoneFlags::Flag flag = flags.claim();
  ASSERT_FALSE(flag.empty());
  void *done = flag.device();
  void *params[] = {&done};
  const CudaDriver &drv = context_->drv();
  ASSERT_EQ(drv.cuLaunchKernel(kernel->function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  flag.wait();
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(libcuda, nullptr);
  auto stream_query = reinterpret_cast<decltype(&cuStreamQuery)>(dlsym(libcuda, "cuStreamQuery"));
  ASSERT_NE(stream_query, nullptr);
  EXPECT_EQ(stream_query(nullptr), CUDA_ERROR_NOT_READY) << "the wait outlasted the kernel: it synchronised";
  dlclose(libcuda);
  EXPECT_EQ(drv.cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(GpuDoneFlags, AWaitThatSeesNoFlagSynchronisesAfterTheSpinLimitAndTurnsTheFlagsOff) {
  DoneFlags flags(context_);
  flags.prepare();
  DoneFlags::Flag flag = flags.claim();
  ASSERT_FALSE(flag.empty());
  const auto start = std::chrono::steady_clock::now();
  flag.wait();  // no kernel stores it: as if the device's writes never arrived
  EXPECT_GE(std::chrono::steady_clock::now() - start, DoneFlags::kSpinLimit);
  EXPECT_TRUE(flags.claim().empty()) << "later calls should synchronise at once";
}

}  // namespace
}  // namespace ufjit::cuda
