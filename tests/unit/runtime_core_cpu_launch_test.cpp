// runtime/CpuLaunch: how a CPU call's range is cut into pieces for the
// thread pool (the CPU's launch configuration), and that running a launch
// visits every index once. Expected pieces computed by hand.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "runtime/CpuLaunch.h"

namespace {

using ufjit::runtime::CpuLaunch;
using ufjit::runtime::elementwise_cpu_launch;
using ufjit::runtime::method_cpu_launch;

TEST(CpuLaunch, SmallElementwiseRangesRunOnTheCaller) {
  // Below 2^15 elements of work: one piece, no threads.
  const CpuLaunch small = elementwise_cpu_launch(0, 1000, 1, 8, false);
  EXPECT_TRUE(small.on_caller);
  EXPECT_EQ(small.pieces(), 1);
  // One thread: always on the caller, however large.
  EXPECT_TRUE(elementwise_cpu_launch(0, int64_t{1} << 24, 1, 1, false).on_caller);
  // 100 outer elements of 1000 elements each are 10^5 elements of work: threads.
  EXPECT_FALSE(elementwise_cpu_launch(0, 100, 1000, 8, false).on_caller);
  // Nothing to do: no piece.
  EXPECT_EQ(elementwise_cpu_launch(5, 5, 1, 8, false).pieces(), 0);
}

TEST(CpuLaunch, ElementwisePiecesAreFourPerThreadInWholeCacheLines) {
  // 2^20 elements on 8 threads: 32 pieces of 32768 (a multiple of 64).
  const CpuLaunch a = elementwise_cpu_launch(0, int64_t{1} << 20, 1, 8, false);
  EXPECT_EQ(a.piece, 32768);
  EXPECT_EQ(a.pieces(), 32);
  // 10^6 elements from 3 on: 999997 / 32 = 31249.9 -> 31250 -> 31296 (64 * 489).
  const CpuLaunch b = elementwise_cpu_launch(3, 1000000, 1, 8, false);
  EXPECT_EQ(b.begin, 3);
  EXPECT_EQ(b.piece, 31296);
  EXPECT_EQ(b.pieces(), 32);
  // Never below 2^14 elements: 40000 elements on 8 threads are 3 pieces.
  const CpuLaunch c = elementwise_cpu_launch(0, 40000, 1, 8, false);
  EXPECT_EQ(c.piece, 16384);
  EXPECT_EQ(c.pieces(), 3);
  // Heavy indices (weight 1000): at least 16 per piece, no alignment.
  const CpuLaunch d = elementwise_cpu_launch(0, 100, 1000, 8, false);
  EXPECT_EQ(d.piece, 16);
  EXPECT_EQ(d.pieces(), 7);
}

TEST(CpuLaunch, MethodRowsSplitFourPiecesPerThread) {
  // 1000 rows of 100 elements on 4 threads: 16 pieces of 63 rows (the last 55).
  const CpuLaunch a = method_cpu_launch(1000, 100, 4, false);
  EXPECT_FALSE(a.on_caller);
  EXPECT_EQ(a.piece, 63);
  EXPECT_EQ(a.pieces(), 16);
  // One row, or little work, or one thread: on the caller.
  EXPECT_TRUE(method_cpu_launch(1, int64_t{1} << 30, 4, false).on_caller);
  EXPECT_TRUE(method_cpu_launch(100, 100, 4, false).on_caller);
  EXPECT_TRUE(method_cpu_launch(1000, 100, 1, false).on_caller);
}

TEST(CpuLaunch, RunningALaunchVisitsEveryIndexOnce) {
  ufjit::runtime::ThreadPool pool(4);
  for (const CpuLaunch &launch : {elementwise_cpu_launch(3, 1000000, 1, 4, false), method_cpu_launch(1000, 100, 4, false),
                                  method_cpu_launch(10, 10, 4, false)}) {
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(launch.end));
    const std::function<bool()> no_interrupt;
    ufjit::runtime::InterruptPoll never(no_interrupt);
    ufjit::runtime::run_cpu_launch(
        pool, launch,
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            seen[static_cast<std::size_t>(i)].fetch_add(1);
          }
        },
        never);
    for (int64_t i = 0; i < launch.end; ++i) {
      EXPECT_EQ(seen[static_cast<std::size_t>(i)].load(), i >= launch.begin ? 1 : 0) << "index " << i;
    }
  }
}

TEST(CpuLaunch, AnInterruptibleLaunchHasShortPiecesEvenOnOneThread) {
  // 2^24 elements on one thread: pieces of InterruptPoll::kChunkWork (2^16).
  const CpuLaunch a = elementwise_cpu_launch(0, int64_t{1} << 24, 1, 1, true);
  EXPECT_FALSE(a.on_caller);
  EXPECT_EQ(a.piece, ufjit::runtime::InterruptPoll::kChunkWork);
  EXPECT_EQ(a.pieces(), 256);
  // Outer elements of 1000 elements each: 65 per piece.
  EXPECT_EQ(elementwise_cpu_launch(0, 100000, 1000, 8, true).piece, 65);
  // Method rows of 10^6 elements: one row per piece.
  EXPECT_EQ(method_cpu_launch(1000, 1000000, 1, true).piece, 1);
  // Small work stays on the caller.
  EXPECT_TRUE(elementwise_cpu_launch(0, 1000, 1, 1, true).on_caller);
}

TEST(CpuLaunch, AnInterruptStopsTheLaunchBetweenPiecesWithCancelled) {
  ufjit::runtime::ThreadPool pool(1);
  const CpuLaunch launch = elementwise_cpu_launch(0, int64_t{1} << 24, 1, 1, true);
  std::function<bool()> interrupt = [] { return true; };
  ufjit::runtime::InterruptPoll poll(interrupt);
  std::atomic<int64_t> pieces_run{0};
  // Each piece takes a millisecond: the poll asks every InterruptPoll::kInterval.
  auto slow_piece = [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    pieces_run.fetch_add(1);
  };
  EXPECT_THROW(ufjit::runtime::run_cpu_launch(pool, launch, slow_piece, poll), ufjit::Cancelled);
  EXPECT_LT(pieces_run.load(), launch.pieces());
}

}  // namespace
