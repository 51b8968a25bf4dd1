// ThreadPool::parallel_for's `stop` (runtime/ThreadPool.h): once the
// caller's check says stop, no chunk starts, the running ones finish, and
// the pool runs the next job in full.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "runtime/ThreadPool.h"

namespace ufjit::runtime {
namespace {

class ThreadPoolStopTest : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolStopTest, StopsBetweenChunksAndTheNextJobRunsInFull) {
  ThreadPool pool(GetParam());
  constexpr int64_t kChunks = 10000;
  std::atomic<int64_t> started{0};
  std::atomic<int64_t> finished{0};
  std::atomic<int64_t> running{0};
  const bool completed = pool.parallel_for(
      kChunks,
      [&](int64_t) {
        running.fetch_add(1);
        started.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        running.fetch_sub(1);
        finished.fetch_add(1);
      },
      [&] { return started.load() >= 20; });
  EXPECT_FALSE(completed);
  EXPECT_EQ(running.load(), 0) << "a chunk still ran after parallel_for returned";
  EXPECT_EQ(started.load(), finished.load());
  EXPECT_GE(started.load(), 20);
  EXPECT_LT(started.load(), kChunks / 2);

  std::atomic<int64_t> all{0};
  EXPECT_TRUE(pool.parallel_for(kChunks, [&](int64_t) { all.fetch_add(1); }, [] { return false; }));
  EXPECT_EQ(all.load(), kChunks);
}

TEST_P(ThreadPoolStopTest, ReturnsFalseExactlyWhenStopSaidTrue) {
  ThreadPool pool(GetParam());
  for (int stop_at : {1, 2, 3, 4}) {
    std::atomic<int64_t> ran{0};
    int asked = 0;
    const bool completed = pool.parallel_for(
        3, [&](int64_t) { ran.fetch_add(1); }, [&] { return ++asked >= stop_at; });
    // True only when every answer was false, and then every chunk ran.
    EXPECT_EQ(completed, asked < stop_at) << stop_at;
    EXPECT_TRUE(!completed || ran.load() == 3) << stop_at;
    if (GetParam() == 1) {  // the caller runs every chunk, asking first each time
      EXPECT_EQ(ran.load(), std::min(stop_at - 1, 3)) << stop_at;
    }
  }
}

TEST_P(ThreadPoolStopTest, AnExceptionFromStopLeavesOnceTheRunningChunksFinished) {
  ThreadPool pool(GetParam());
  std::atomic<int64_t> running{0};
  std::atomic<int64_t> started{0};
  EXPECT_THROW(pool.parallel_for(
                   1000,
                   [&](int64_t) {
                     running.fetch_add(1);
                     started.fetch_add(1);
                     std::this_thread::sleep_for(std::chrono::microseconds(200));
                     running.fetch_sub(1);
                   },
                   [&]() -> bool {
                     if (started.load() >= 5) {
                       throw std::runtime_error("stop");
                     }
                     return false;
                   }),
               std::runtime_error);
  EXPECT_EQ(running.load(), 0);
  EXPECT_LT(started.load(), 1000);
  std::atomic<int64_t> all{0};
  EXPECT_TRUE(pool.parallel_for(100, [&](int64_t) { all.fetch_add(1); }));
  EXPECT_EQ(all.load(), 100);
}

TEST(InterruptPoll, AsksAtMostOncePerIntervalAndStaysStopped) {
  int asked = 0;
  bool answer = false;
  const std::function<bool()> interrupt = [&] {
    ++asked;
    return answer;
  };
  InterruptPoll poll(interrupt);
  EXPECT_FALSE(poll());  // not due yet
  EXPECT_EQ(asked, 0);
  std::this_thread::sleep_for(InterruptPoll::kInterval + std::chrono::milliseconds(2));
  EXPECT_FALSE(poll());
  EXPECT_EQ(asked, 1);
  EXPECT_FALSE(poll());
  EXPECT_EQ(asked, 1);
  answer = true;
  std::this_thread::sleep_for(InterruptPoll::kInterval + std::chrono::milliseconds(2));
  EXPECT_TRUE(poll());
  answer = false;
  EXPECT_TRUE(poll());  // once stopped, stopped
  EXPECT_EQ(asked, 2);
  const std::function<bool()> none;
  InterruptPoll never(none);
  EXPECT_FALSE(never.enabled());
  EXPECT_FALSE(never());
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolStopTest, ::testing::Values(1, 4));

}  // namespace
}  // namespace ufjit::runtime
