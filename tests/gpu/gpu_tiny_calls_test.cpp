// Synchronous calls of one block, which wait for their kernel's done flag
// instead of the stream (runtime/cuda/DoneFlags.h): what the caller sees
// when the call returns is the call's own result, on every entry layout,
// with many host threads calling at once (more than there are flags), and
// to work on a stream that nothing orders after the call.
#include <dlfcn.h>

#include <atomic>
#include <thread>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

using GpuTinyCalls = GpuTest;

const char *kSinCosSource = R"UFN(
import math

@vectorize(["float32(float32)"])
def sincos(x):
    return math.sin(x) * math.cos(x)
)UFN";

/// Sizes inside one block of every seed entry (32 to 1024 threads, up to
/// four elements each) and one past it.
const int64_t kSizes[] = {1, 2, 31, 32, 33, 255, 1000, 4097, 70000};

TEST_F(GpuTinyCalls, EachCallReturnsItsOwnResultOnContiguousAndStridedOperands) {
  Ufunc add = rt().vectorize(kAddI64Source);
  int64_t round = 0;
  for (const int64_t n : kSizes) {
    for (int repeat = 0; repeat < 20; ++repeat, ++round) {
      std::vector<int64_t> a(static_cast<std::size_t>(2 * n)), b(static_cast<std::size_t>(n));
      for (int64_t i = 0; i < 2 * n; ++i) a[static_cast<std::size_t>(i)] = round * 1000003 + i;
      for (int64_t i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = -round + 7 * i;
      Array da = rt().to_device(a);
      Array db = rt().to_device(b);
      ArrayView every_other = da.view();  // a strided operand: the strided entry
      every_other.shape = {n};
      every_other.strides = {16};
      Array strided(every_other, da.holder());
      ArrayView first = da.view();
      first.shape = {n};
      Array contiguous(first, da.holder());
      Array sum = add(contiguous, db);
      Array into = rt().device_empty(DType::Int64, {n});
      add(strided, db, out(into));
      const std::vector<int64_t> got_sum = download<int64_t>(rt(), sum);
      const std::vector<int64_t> got_into = download<int64_t>(rt(), into);
      for (int64_t i = 0; i < n; ++i) {
        const std::size_t k = static_cast<std::size_t>(i);
        ASSERT_EQ(got_sum[k], a[k] + b[k]) << "n=" << n << " repeat=" << repeat << " i=" << i;
        ASSERT_EQ(got_into[k], a[2 * k] + b[k]) << "n=" << n << " repeat=" << repeat << " i=" << i;
      }
    }
  }
}

TEST_F(GpuTinyCalls, AnExpensiveBodyWithLaneGroupsReturnsEveryElement) {
  Ufunc sincos = rt().vectorize(kSinCosSource);
  for (const int64_t n : kSizes) {
    std::vector<float> x =
        random_values<float>(static_cast<std::size_t>(n), static_cast<unsigned>(n), -3.0, 3.0);
    const std::vector<float> got = download<float>(rt(), sincos(rt().to_device(x)));
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[static_cast<std::size_t>(i)];
      ASSERT_NEAR(got[static_cast<std::size_t>(i)], std::sin(v) * std::cos(v), 1e-5)
          << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(GpuTinyCalls, ManyHostThreadsCallingAtOnceEachGetTheirOwnResult) {
  // More threads than the 64 flags: some calls find none free and
  // synchronise the stream instead; every result must still be its own.
  Ufunc add = rt().vectorize(kAddI64Source);
  constexpr int kThreads = 96;
  constexpr int kCalls = 40;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) {
        const int64_t base = int64_t{t} * 100000 + c;
        Array da = rt().to_device(std::vector<int64_t>{base, base + 1, base + 2});
        Array sum = add(da, da);
        Array into = rt().device_empty(DType::Int64, {3});
        add(da, int64_t{1}, out(into));
        const std::vector<int64_t> s = download<int64_t>(rt(), sum);
        const std::vector<int64_t> i = download<int64_t>(rt(), into);
        if (s != std::vector<int64_t>{2 * base, 2 * base + 2, 2 * base + 4} ||
            i != std::vector<int64_t>{base + 1, base + 2, base + 3}) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(GpuTinyCalls, AResultIsReadyForANonBlockingStreamWhenTheCallReturns) {
  // A non-blocking stream is ordered after nothing on the legacy stream:
  // only the call's own wait makes its result visible to work queued there.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(driver, nullptr);
  using StreamCreate = int (*)(void **, unsigned);
  using StreamDestroy = int (*)(void *);
  auto create = reinterpret_cast<StreamCreate>(dlsym(driver, "cuStreamCreate"));
  auto destroy = reinterpret_cast<StreamDestroy>(dlsym(driver, "cuStreamDestroy_v2"));
  ASSERT_TRUE(create != nullptr && destroy != nullptr);
  Ufunc add = rt().vectorize(kAddI64Source);
  Array one = rt().to_device(std::vector<int64_t>{1});
  void *cu_stream = nullptr;
  ASSERT_EQ(create(&cu_stream, 1 /* CU_STREAM_NON_BLOCKING */), 0);
  {
    Stream other = rt().borrow_stream(cu_stream);
    Array total = rt().to_device(std::vector<int64_t>{0});
    Array next = rt().device_empty(DType::Int64, {1});
    for (int64_t k = 1; k <= 300; ++k) {
      add(total, one, out(total));              // synchronous, on the legacy stream: total = k
      add.async(other, total, one, out(next));  // reads total on the other stream
      other.synchronize();
      ASSERT_EQ(download<int64_t>(rt(), next), (std::vector<int64_t>{k + 1})) << "k=" << k;
    }
  }
  EXPECT_EQ(destroy(cu_stream), 0);
  dlclose(driver);
}

TEST_F(GpuTinyCalls, AKernelThatCanRaiseStillRaisesOnATinyCall) {
  Ufunc checked = rt().vectorize(R"UFN(
@vectorize(["int64(int64)"])
def checked(x):
    if x < 0:
        raise ValueError("negative")
    return x * 2
)UFN");
  Array fine = rt().to_device(std::vector<int64_t>{3});
  EXPECT_EQ(download<int64_t>(rt(), checked(fine)), (std::vector<int64_t>{6}));
  Array bad = rt().to_device(std::vector<int64_t>{-3});
  EXPECT_THROW(checked(bad), KernelError);
  EXPECT_EQ(download<int64_t>(rt(), checked(fine)), (std::vector<int64_t>{6}));
}

}  // namespace
}  // namespace ufjit::gpu_testing
