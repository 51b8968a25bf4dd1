// RuntimeOptions::interrupt (runtime.h): a long synchronous CPU call polls
// it between chunks and stops with ufjit::Cancelled when it says true; the
// Runtime works afterwards and keeps no thread or job of the stopped call.
#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using Clock = std::chrono::steady_clock;

// About a microsecond per element: a call over kSlowElements takes seconds.
constexpr const char *kSlow =
    "def slow(x):\n"
    "    acc = x\n"
    "    for i in range(1000):\n"
    "        acc = acc * 0.5 + 1.0\n"
    "    return acc\n";
// Declared reorderable: a long row is reduced in chunks (a function that
// is not is folded left to right in one piece per row).
constexpr const char *kSlowMax =
    "@vectorize(['float64(float64, float64)'], identity='reorderable')\n"
    "def slow_max(a, b):\n"
    "    acc = a\n"
    "    for i in range(1000):\n"
    "        acc = acc * 0.5 + 1.0\n"
    "    return max(a, b) + 0.0 * acc\n";
constexpr int64_t kSlowElements = int64_t{1} << 21;

/// Threads of this process (Linux), to see that a stopped call leaves none.
int thread_count() {
  int n = 0;
  if (DIR *dir = opendir("/proc/self/task")) {
    while (dirent *e = readdir(dir)) {
      n += e->d_name[0] != '.';
    }
    closedir(dir);
  }
  return n;
}

struct Interruptible {
  std::atomic<bool> stop{false};
  std::atomic<int> polls{0};
  ufjit::Runtime rt;
  explicit Interruptible(int threads)
      : rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu,
                                 .cpu_threads = threads,
                                 .interrupt = [this] {
                                   polls.fetch_add(1);
                                   return stop.load();
                                 }}) {}
};

/// Sets `stop` after `delay` from another thread, as a signal handler would.
std::thread stop_after(std::atomic<bool> &stop, std::chrono::milliseconds delay) {
  return std::thread([&stop, delay] {
    std::this_thread::sleep_for(delay);
    stop = true;
  });
}

class InterruptTest : public ::testing::TestWithParam<int> {};

TEST_P(InterruptTest, LongCallStopsPromptlyAndTheNextCallWorks) {
  Interruptible ctx(GetParam());
  ufjit::Ufunc slow = ctx.rt.vectorize(kSlow, {"float64(float64)"});
  std::vector<double> x(kSlowElements, 2.0);
  // The whole call's time, from a 32th of it (which also compiles it).
  slow(std::vector<double>(kSlowElements / 32, 2.0));
  auto t0 = Clock::now();
  slow(std::vector<double>(kSlowElements / 32, 2.0));
  const double whole = 32 * std::chrono::duration<double>(Clock::now() - t0).count();
  const int threads = thread_count();
  std::thread stopper = stop_after(ctx.stop, std::chrono::milliseconds(100));
  const auto start = Clock::now();
  EXPECT_THROW(slow(x), ufjit::Cancelled);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stopper.join();
  EXPECT_LT(seconds, 0.1 + 1.0) << "the stop came at 0.1 s; the whole call takes " << whole << " s";
  EXPECT_GT(whole, 2 * seconds) << "the call is too short to show a stop";
  EXPECT_GT(ctx.polls.load(), 0);
  EXPECT_EQ(thread_count(), threads);
  // Usable at once: the same call, shorter, runs to the end.
  ctx.stop = false;
  std::vector<double> small(100000, 2.0);
  const ufjit::Array r = slow(small);
  // acc -> 2 (the fixed point of acc * 0.5 + 1) from 2: exactly 2.
  for (double v : r.to_vector<double>()) {
    ASSERT_EQ(v, 2.0);
  }
}

TEST_P(InterruptTest, CancelledIsAnErrorAndOutHoldsOnlyOldOrNewValues) {
  Interruptible ctx(GetParam());
  ufjit::Ufunc slow = ctx.rt.vectorize(kSlow, {"float64(float64)"});
  std::vector<double> x(kSlowElements, 2.0);
  std::vector<double> out(kSlowElements, -1.0);
  ctx.stop = true;  // at the first poll, 10 ms in
  try {
    slow(x, ufjit::out(ufjit::view(out)));
    FAIL() << "no Cancelled";
  } catch (const ufjit::Error &e) {  // Cancelled is one of ufjit's errors
    EXPECT_NE(dynamic_cast<const ufjit::Cancelled *>(&e), nullptr) << e.what();
    EXPECT_NE(std::string(e.what()).find("interrupt"), std::string::npos) << e.what();
  }
  int64_t written = 0;
  for (double v : out) {
    ASSERT_TRUE(v == -1.0 || v == 2.0) << v;
    written += v == 2.0;
  }
  EXPECT_LT(written, kSlowElements);
}

TEST_P(InterruptTest, ReduceAndGufuncStopToo) {
  Interruptible ctx(GetParam());
  ufjit::Ufunc slow_max = ctx.rt.load(kSlowMax)["slow_max"];
  std::vector<double> x(kSlowElements, 3.0);
  ctx.stop = true;
  EXPECT_THROW(slow_max.reduce(ufjit::view(x)), ufjit::Cancelled);
  ctx.stop = false;
  std::vector<double> small = {1.0, 5.0, 2.0};
  EXPECT_EQ(slow_max.reduce(ufjit::view(small)).to_vector<double>(), std::vector<double>{5.0});

  ufjit::UfuncSet set = ctx.rt.load(
      "@guvectorize(['void(float64[:], float64[:])'], '(n)->()')\n"
      "def row_slow(a, res):\n"
      "    acc = 0.0\n"
      "    for i in range(a.shape[0]):\n"
      "        for k in range(1000):\n"
      "            acc = acc * 0.5 + a[i]\n"
      "    res[0] = acc\n");
  std::vector<double> rows(int64_t{1} << 20, 1.0);
  ufjit::ArrayView m{rows.data(), ufjit::DType::Float64, {4096, 256}, {2048, 8}};
  ctx.stop = true;
  EXPECT_THROW(set["row_slow"](m), ufjit::Cancelled);
  ctx.stop = false;
  std::vector<double> one(4, 1.0);
  const std::vector<double> res = set["row_slow"](ufjit::view(one)).to_vector<double>();
  double expected = 0.0;
  for (int i = 0; i < 4 * 1000; ++i) {
    expected = expected * 0.5 + 1.0;
  }
  EXPECT_DOUBLE_EQ(res.at(0), expected);
}

TEST(Interrupt, ShortCallsNeverAskAndNoInterruptNeverStops) {
  Interruptible ctx(2);
  ufjit::Ufunc slow = ctx.rt.vectorize(kSlow, {"float64(float64)"});
  ctx.stop = true;
  std::vector<double> x(1000, 2.0);
  EXPECT_EQ(slow(x).to_vector<double>(), x);  // done before the first poll is due
  EXPECT_EQ(ctx.polls.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, InterruptTest, ::testing::Values(1, 3));

}  // namespace
