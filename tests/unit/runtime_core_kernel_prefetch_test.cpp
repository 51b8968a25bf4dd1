// The hand-over of kernels loaded while a source is typed
// (runtime/KernelPrefetch.h): a first call takes a loaded kernel, waits for
// one being loaded or an index being read, never for work not started, and
// the worker skips what a call took over.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "runtime/KernelPrefetch.h"

namespace ufjit::runtime {
namespace {

struct FakeKernel {
  int id = 0;
};

using Prefetch = KernelPrefetch<FakeKernel>;

const PrefetchKey kSource{1, 2};
const PrefetchKey kOtherSource{3, 4};
const PrefetchKey kCubinA{10, 11};
const PrefetchKey kCubinB{20, 21};

std::shared_ptr<FakeKernel> kernel(int id) { return std::make_shared<FakeKernel>(FakeKernel{id}); }

/// The worker's whole job, as CubinPrefetch runs it: ids 1, 2, ... in order.
void run_job(Prefetch &prefetch, const PrefetchKey &source, const std::vector<PrefetchKey> &cubins) {
  if (!prefetch.begin(source)) {
    return;
  }
  int id = 0;
  for (const PrefetchKey &cubin : prefetch.listed(source, cubins)) {
    ++id;
    if (prefetch.claim(cubin)) {
      prefetch.finish(cubin, kernel(id));
    }
  }
}

TEST(KernelPrefetch, AFirstCallTakesTheLoadedKernelOnce) {
  Prefetch prefetch;
  ASSERT_TRUE(prefetch.expect(kSource));
  run_job(prefetch, kSource, {kCubinA, kCubinB});
  std::shared_ptr<FakeKernel> b = prefetch.take(kSource, kCubinB);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->id, 2);
  EXPECT_EQ(prefetch.take(kSource, kCubinB), nullptr) << "a kernel is handed over once";
  EXPECT_EQ(prefetch.taken(), 1u);
  EXPECT_EQ(prefetch.held(), 1u) << "cubin A stays loaded until taken";
}

TEST(KernelPrefetch, ACubinTheIndexDoesNotListIsTheCallersToLoad) {
  Prefetch prefetch;
  ASSERT_TRUE(prefetch.expect(kSource));
  run_job(prefetch, kSource, {kCubinA});
  EXPECT_EQ(prefetch.take(kSource, kCubinB), nullptr);
  EXPECT_EQ(prefetch.take(kOtherSource, kCubinB), nullptr);
}

TEST(KernelPrefetch, AJobNotStartedIsCancelledNotWaitedFor) {
  Prefetch prefetch;
  ASSERT_TRUE(prefetch.expect(kSource));
  EXPECT_EQ(prefetch.take(kSource, kCubinA), nullptr) << "took without waiting for a queued job";
  EXPECT_FALSE(prefetch.begin(kSource)) << "the cancelled job still ran";
  EXPECT_EQ(prefetch.held(), 0u);
}

TEST(KernelPrefetch, ASecondExpectOfAQueuedSourceQueuesNoSecondJob) {
  Prefetch prefetch;
  EXPECT_TRUE(prefetch.expect(kSource));
  EXPECT_FALSE(prefetch.expect(kSource));
  // Cancelled by a first call, then expected again: the job already queued serves it.
  EXPECT_EQ(prefetch.take(kSource, kCubinA), nullptr);
  EXPECT_FALSE(prefetch.expect(kSource));
  EXPECT_TRUE(prefetch.begin(kSource));
  prefetch.listed(kSource, {});
  EXPECT_TRUE(prefetch.expect(kSource)) << "a finished job leaves room for the next";
}

TEST(KernelPrefetch, AQueuedCubinTakenOverIsSkippedByTheWorker) {
  Prefetch prefetch;
  ASSERT_TRUE(prefetch.expect(kSource));
  ASSERT_TRUE(prefetch.begin(kSource));
  const std::vector<PrefetchKey> to_load = prefetch.listed(kSource, {kCubinA, kCubinB});
  ASSERT_EQ(to_load.size(), 2u);
  EXPECT_EQ(prefetch.take(kSource, kCubinB), nullptr) << "a cubin not yet claimed is the caller's";
  EXPECT_TRUE(prefetch.claim(kCubinA));
  EXPECT_FALSE(prefetch.claim(kCubinB)) << "the worker loaded a cubin the caller took over";
  prefetch.finish(kCubinA, kernel(1));
  EXPECT_EQ(prefetch.held(), 1u);
}

TEST(KernelPrefetch, AFailedLoadLeavesTheCubinToTheCaller) {
  Prefetch prefetch;
  ASSERT_TRUE(prefetch.expect(kSource));
  ASSERT_TRUE(prefetch.begin(kSource));
  prefetch.listed(kSource, {kCubinA});
  ASSERT_TRUE(prefetch.claim(kCubinA));
  prefetch.finish(kCubinA, nullptr);
  EXPECT_EQ(prefetch.take(kSource, kCubinA), nullptr);
  EXPECT_EQ(prefetch.held(), 0u);
}

TEST(KernelPrefetch, ACallWaitsForTheIndexBeingReadAndTheCubinBeingLoaded) {
  for (int stage = 0; stage < 2; ++stage) {
    Prefetch prefetch;
    ASSERT_TRUE(prefetch.expect(kSource));
    ASSERT_TRUE(prefetch.begin(kSource));  // stage 0: reading the index
    if (stage == 1) {                      // stage 1: loading the cubin
      prefetch.listed(kSource, {kCubinA});
      ASSERT_TRUE(prefetch.claim(kCubinA));
    }
    std::atomic<bool> returned{false};
    std::shared_ptr<FakeKernel> got;
    std::thread call([&] {
      got = prefetch.take(kSource, kCubinA);
      returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(returned.load()) << "stage " << stage << ": take() did not wait";
    if (stage == 0) {
      prefetch.listed(kSource, {kCubinA});
      // The index is read; the cubin is queued, not claimed: the call may
      // take it over, and then the worker's claim fails.
      call.join();
      EXPECT_EQ(got, nullptr);
      EXPECT_FALSE(prefetch.claim(kCubinA));
    } else {
      prefetch.finish(kCubinA, kernel(5));
      call.join();
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(got->id, 5);
    }
  }
}

TEST(KernelPrefetch, HoldsAtMostKMaxHeldKernels) {
  Prefetch prefetch;
  std::vector<PrefetchKey> many;
  for (uint64_t i = 0; i < Prefetch::kMaxHeld + 10; ++i) {
    many.push_back({100 + i, i});
  }
  ASSERT_TRUE(prefetch.expect(kSource));
  run_job(prefetch, kSource, many);
  EXPECT_EQ(prefetch.held(), Prefetch::kMaxHeld);
  ASSERT_TRUE(prefetch.expect(kOtherSource));
  run_job(prefetch, kOtherSource, {kCubinA});
  EXPECT_EQ(prefetch.take(kOtherSource, kCubinA), nullptr) << "loaded beyond the bound";
}

}  // namespace
}  // namespace ufjit::runtime
