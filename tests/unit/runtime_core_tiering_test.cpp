// Tiering's host-side parts: the JIT engine's optimised kernel replaces the
// quick one in HotKernels while references to the old one stay valid, and the TierUp worker runs
// its jobs in order, reports idleness, and finishes queued jobs when it is
// destroyed (runtime/HotKernels.h, runtime/cuda/TierUp.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/Backend.h"
#include "runtime/HotKernels.h"
#include "runtime/KernelCache.h"
#include "runtime/cuda/TierUp.h"
#include "tests/unit/runtime_jit_engine_fake.h"

namespace ufjit::runtime {
namespace {

using testing::FakeKernel;
using testing::FakeToolchain;
using testing::signature_with_hashes;

const codegen::KernelVariant kContiguous{codegen::Layout::Contiguous, true, 0};

/// A HotKernels in front of an engine whose toolchain compiles quickly
/// first, with a worker that runs optimised compiles when told to.
struct TieredKernels {
  TieredKernels() { toolchain.quick = true; }
  void run_optimised_compiles() {
    for (auto &job : queued) {
      job();
    }
    queued.clear();
  }
  const FakeKernel &get(const CompiledSignature &sig, const codegen::KernelVariant &variant) {
    return hot.get(KernelRequest::entry(sig, variant), engine).kernel();
  }

  KernelCache cache;
  FakeToolchain toolchain;
  std::vector<std::function<void()>> queued;
  JitEngine engine{cache, toolchain, nullptr,
                   BackgroundWorker{[this](std::function<void()> job) { queued.push_back(std::move(job)); }, [] {}}};
  HotKernels<FakeKernel> hot;
};

TEST(HotKernelsReplace, LaterLookupsGetTheReplacementAndEarlierReferencesStayValid) {
  TieredKernels k;
  const CompiledSignature sig = signature_with_hashes(11, 22);
  const FakeKernel &quick = k.get(sig, kContiguous);
  ASSERT_EQ(quick.value, 1);
  EXPECT_TRUE(quick.quick_tier);
  k.run_optimised_compiles();
  const FakeKernel &now = k.get(sig, kContiguous);
  EXPECT_EQ(now.value, 2) << "the optimised kernel, not a new compile";
  EXPECT_FALSE(now.quick_tier);
  EXPECT_EQ(k.toolchain.compiles.load(), 2);
  EXPECT_EQ(quick.value, 1) << "the replaced kernel is still alive for calls that hold it";
}

TEST(HotKernelsReplace, AReplacementBeforeTheFirstInsertWins) {
  TieredKernels k;
  const CompiledSignature sig = signature_with_hashes(5, 6);
  // The tier-up finishes while the first lookup is still inserting its quick kernel.
  k.toolchain.before_compile = [&](const KernelRequest &, codegen::PtxTier) {
    k.hot.replace(sig, kContiguous, std::make_shared<const FakeKernel>(20));
  };
  EXPECT_EQ(k.get(sig, kContiguous).value, 20);
}

TEST(HotKernelsReplace, OtherVariantsAndSignaturesAreUntouched) {
  TieredKernels k;
  const CompiledSignature a = signature_with_hashes(1, 1);
  const CompiledSignature b = signature_with_hashes(2, 1);
  const codegen::KernelVariant strided{codegen::Layout::Strided, true, 0};
  EXPECT_EQ(k.get(a, kContiguous).value, 1);
  EXPECT_EQ(k.get(a, strided).value, 2);
  EXPECT_EQ(k.get(b, kContiguous).value, 3);
  k.hot.replace(a, kContiguous, std::make_shared<const FakeKernel>(100));
  EXPECT_EQ(k.get(a, kContiguous).value, 100);
  EXPECT_EQ(k.get(a, strided).value, 2);
  EXPECT_EQ(k.get(b, kContiguous).value, 3);
}

TEST(TierUp, JobsRunInOrderOnAnotherThreadAndWaitIdleWaitsForThem) {
  cuda::TierUp tier_up;
  std::mutex mutex;
  std::vector<int> order;
  std::atomic<bool> on_caller{false};
  const auto caller = std::this_thread::get_id();
  for (int i = 0; i < 5; ++i) {
    tier_up.submit([&, i] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (std::this_thread::get_id() == caller) on_caller = true;
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(i);
    });
  }
  tier_up.wait_idle();
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(on_caller.load());
}

TEST(TierUp, DestructorFinishesEveryQueuedJob) {
  std::atomic<int> done{0};
  {
    cuda::TierUp tier_up;
    for (int i = 0; i < 4; ++i) {
      tier_up.submit([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ++done;
      });
    }
  }
  EXPECT_EQ(done.load(), 4);
}

TEST(TierUp, WaitIdleWithNothingQueuedReturnsAtOnce) {
  cuda::TierUp tier_up;
  const auto t0 = std::chrono::steady_clock::now();
  tier_up.wait_idle();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

}  // namespace
}  // namespace ufjit::runtime
