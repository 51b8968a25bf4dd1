// Tiering's host-side parts: HotKernels::replace swaps in a better kernel
// while references to the old one stay valid, and the TierUp worker runs
// its jobs in order, reports idleness, and finishes queued jobs when it is
// destroyed (runtime/HotKernels.h, runtime/cuda/TierUp.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/Backend.h"
#include "runtime/HotKernels.h"
#include "runtime/KernelCache.h"
#include "runtime/cuda/TierUp.h"

namespace ufjit::runtime {
namespace {

struct TierKernel : CompiledKernel {
  explicit TierKernel(int v) : value(v) {}
  int value;
};

CompiledSignature signature_with_hashes(uint64_t ir_hash, uint64_t name_hash) {
  CompiledSignature s;
  s.ir_hash = ir_hash;
  s.base_name_hash = name_hash;
  s.signature = "float32(float32)";
  return s;
}

KernelKey key_of(const CompiledSignature &s) {
  KernelKey k;
  k.ir_hash = s.ir_hash;
  k.signature = s.signature;
  k.target_key = "tiering-test";
  return k;
}

const codegen::KernelVariant kContiguous{codegen::Layout::Contiguous, true, 0};

TEST(HotKernelsReplace, LaterLookupsGetTheReplacementAndEarlierReferencesStayValid) {
  KernelCache cache;
  HotKernels<TierKernel> hot;
  const CompiledSignature sig = signature_with_hashes(11, 22);
  auto key = [&] { return key_of(sig); };
  const TierKernel &quick =
      hot.get(sig, kContiguous, cache, key, [] { return std::make_shared<const TierKernel>(1); }).kernel();
  ASSERT_EQ(quick.value, 1);
  hot.replace(sig, kContiguous, std::make_shared<const TierKernel>(2));
  int compiles = 0;
  const TierKernel &now = hot.get(sig, kContiguous, cache, key, [&] {
                                ++compiles;
                                return std::make_shared<const TierKernel>(3);
                              }).kernel();
  EXPECT_EQ(now.value, 2) << "the replacement, not a new compile";
  EXPECT_EQ(compiles, 0);
  EXPECT_EQ(quick.value, 1) << "the replaced kernel is still alive for calls that hold it";
}

TEST(HotKernelsReplace, AReplacementBeforeTheFirstInsertWins) {
  KernelCache cache;
  HotKernels<TierKernel> hot;
  const CompiledSignature sig = signature_with_hashes(5, 6);
  auto key = [&] { return key_of(sig); };
  // The tier-up finishes while the first lookup is still inserting its quick kernel.
  const TierKernel &got = hot.get(sig, kContiguous, cache, key, [&] {
                                hot.replace(sig, kContiguous, std::make_shared<const TierKernel>(20));
                                return std::make_shared<const TierKernel>(10);
                              }).kernel();
  EXPECT_EQ(got.value, 20);
}

TEST(HotKernelsReplace, OtherVariantsAndSignaturesAreUntouched) {
  KernelCache cache;
  HotKernels<TierKernel> hot;
  const CompiledSignature a = signature_with_hashes(1, 1);
  const CompiledSignature b = signature_with_hashes(2, 1);
  const codegen::KernelVariant strided{codegen::Layout::Strided, true, 0};
  auto make = [](int v) { return [v] { return std::make_shared<const TierKernel>(v); }; };
  hot.get(a, kContiguous, cache, [&] { return key_of(a); }, make(1));
  hot.get(a, strided, cache, [&] { auto k = key_of(a); k.variant = strided; return k; }, make(2));
  hot.get(b, kContiguous, cache, [&] { return key_of(b); }, make(3));
  hot.replace(a, kContiguous, std::make_shared<const TierKernel>(100));
  EXPECT_EQ(hot.get(a, kContiguous, cache, [&] { return key_of(a); }, make(-1)).kernel().value, 100);
  EXPECT_EQ(hot.get(a, strided, cache, [&] { auto k = key_of(a); k.variant = strided; return k; }, make(-1)).kernel().value, 2);
  EXPECT_EQ(hot.get(b, kContiguous, cache, [&] { return key_of(b); }, make(-1)).kernel().value, 3);
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
