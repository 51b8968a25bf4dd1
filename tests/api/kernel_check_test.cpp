// The checking mode of explicit kernels (docs/guide/kernels.md, "Checking
// mode") on the CPU target: LaunchConfig::check, `debug=True` and
// UFJIT_CHECK=1 make an index out of bounds an IndexError naming the line,
// the array, the index, its extent and the thread, with no write done, and
// a data race on shared memory a KernelError naming both threads and lines.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using ufjit::LaunchConfig;
using ufjit::view;

class KernelCheck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }
  static ufjit::Runtime &rt() { return *rt_; }
  static std::unique_ptr<ufjit::Runtime> rt_;

  /// Launches `k` on the CPU target; the error's what() when it throws
  /// KernelError of `kind`, else "" (and a failure for any other outcome
  /// but a clean run).
  template <typename... Args>
  static std::string launch(const ufjit::Kernel &k, LaunchConfig config, const char *kind, Args &&...args) {
    const std::array<ufjit::Operand, sizeof...(Args)> operands{ufjit::Operand(std::forward<Args>(args))...};
    try {
      k.launch_on(ufjit::TargetKind::Cpu, config, operands);
    } catch (const ufjit::KernelError &e) {
      EXPECT_EQ(e.exception(), kind) << e.what();
      return e.what();
    }
    return "";
  }
};
std::unique_ptr<ufjit::Runtime> KernelCheck::rt_;

LaunchConfig checked(ufjit::Dim3 grid, ufjit::Dim3 block) {
  LaunchConfig config{.grid = grid, .block = block};
  config.check = true;
  return config;
}

/// Sets an environment variable for one scope, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      unsetenv(name_);
    } else {
      setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char *name_;
  std::string old_;
};

constexpr const char *kShift = R"src(
from numba import cuda

@cuda.jit
def shift(a, out, by):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i + by]
)src";

TEST_F(KernelCheck, AReadOutOfBoundsNamesTheLineArrayIndexExtentAndThread) {
  ufjit::Kernel shift = rt().kernel(kShift);
  std::vector<double> a = {1, 2, 3, 4}, out(4, 0.0);
  EXPECT_EQ(launch(shift, checked(2, 2), "", view(a), view(out), 0), "");
  EXPECT_EQ(out, a);
  const std::string what = launch(shift, checked(2, 2), "IndexError", view(a), view(out), 1);
  EXPECT_NE(what.find(":8:"), std::string::npos) << what;
  EXPECT_NE(what.find("axis 0 of 'a' (index 4, size 4), in thread (1, 0, 0) of block (1, 0, 0)"), std::string::npos)
      << what;
  // Negative indices wrap once, then are checked.
  EXPECT_EQ(launch(shift, checked(1, 4), "", view(a), view(out), -4), "");
  EXPECT_EQ(out, a);
  EXPECT_NE(launch(shift, checked(1, 4), "IndexError", view(a), view(out), -5).find("(index -1, size 4)"),
            std::string::npos);
}

constexpr const char *kScatter2d = R"src(
from numba import cuda

@cuda.jit
def scatter(out, at):
    t = cuda.threadIdx.x
    out[t, at[t]] = t + 1.0
)src";

TEST_F(KernelCheck, AWriteOutOfBoundsOfAnyAxisIsNotDone) {
  ufjit::Kernel scatter = rt().kernel(kScatter2d);
  std::vector<double> out(6, 0.0);
  ufjit::ArrayView grid = view(out.data(), {2, 3});
  std::vector<int64_t> at = {2, 3};
  const std::string what = launch(scatter, checked(1, 2), "IndexError", grid, view(at));
  EXPECT_NE(what.find("axis 1 of 'out' (index 3, size 3), in thread (1, 0, 0)"), std::string::npos) << what;
  EXPECT_EQ(out, (std::vector<double>{0, 0, 1, 0, 0, 0}));  // thread 1 wrote nothing
}

constexpr const char *kSharedAndLocal = R"src(
from numba import cuda, float32

@cuda.jit
def staged(a, out, k):
    tile = cuda.shared.array(8, float32)
    scratch = cuda.local.array((2, 2), float32)
    t = cuda.threadIdx.x
    tile[t] = a[t]
    cuda.syncthreads()
    scratch[0, 0] = tile[t ^ k]
    out[t] = scratch[0, 0]
)src";

TEST_F(KernelCheck, SharedAndLocalArraysAreCheckedToo) {
  ufjit::Kernel staged = rt().kernel(kSharedAndLocal);
  std::vector<float> a = {0, 1, 2, 3, 4, 5, 6, 7}, out(8, -1.0f);
  EXPECT_EQ(launch(staged, checked(1, 8), "", view(a), view(out), 1), "");
  EXPECT_EQ(out[7], 6.0f);
  const std::string what = launch(staged, checked(1, 8), "IndexError", view(a), view(out), 8);
  EXPECT_NE(what.find("axis 0 of 'tile' (index "), std::string::npos) << what;
  EXPECT_NE(what.find(", size 8)"), std::string::npos) << what;
}

constexpr const char *kRace = R"src(
from numba import cuda, int32

@cuda.jit
def last(out):
    cell = cuda.shared.array(1, int32)
    cell[0] = cuda.threadIdx.x
    out[cuda.threadIdx.x] = cell[0]
)src";

TEST_F(KernelCheck, TwoThreadsWritingOneSharedElementWithoutABarrierAreARace) {
  ufjit::Kernel last = rt().kernel(kRace);
  std::vector<int32_t> out(4, -1);
  EXPECT_EQ(launch(last, {.grid = 1, .block = 4}, "", view(out)), "");  // unchecked: not looked for
  const std::string what = launch(last, checked(1, 4), "RuntimeError", view(out));
  EXPECT_NE(what.find("data race on shared memory, byte 0 of the block's static shared memory"), std::string::npos)
      << what;
  EXPECT_NE(what.find("thread (0, 0, 0) writes it at line 7, thread (1, 0, 0) writes it at line 7"), std::string::npos)
      << what;
  EXPECT_NE(what.find("(block (0, 0, 0))"), std::string::npos) << what;
}

constexpr const char *kReduce = R"src(
from numba import cuda, float64

@cuda.jit
def block_sum(a, out):
    part = cuda.shared.array(64, float64)
    t = cuda.threadIdx.x
    part[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if t < step:
            part[t] += part[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = part[0]
)src";

TEST_F(KernelCheck, ABlockReductionWithItsBarriersIsNotARace) {
  ufjit::Kernel block_sum = rt().kernel(kReduce);
  std::vector<double> a(128, 1.0), out(2, 0.0);
  EXPECT_EQ(launch(block_sum, checked(2, 64), "", view(a), view(out)), "");
  EXPECT_EQ(out, (std::vector<double>{64, 64}));
}

/// kReduce with the loop's barrier moved after the loop: a thread's next
/// step reads what another may not have written yet.
std::string racy_reduce() {
  std::string source = kReduce;
  const std::string loop_barrier = "        cuda.syncthreads()\n        step //= 2\n";
  source.replace(source.find(loop_barrier), loop_barrier.size(), "        step //= 2\n    cuda.syncthreads()\n");
  return source;
}

TEST_F(KernelCheck, AReductionMissingItsLoopBarrierIsARaceNamingBothLines) {
  ufjit::Kernel block_sum = rt().kernel(racy_reduce());
  std::vector<double> a(64, 1.0), out(1, 0.0);
  const std::string what = launch(block_sum, checked(1, 64), "RuntimeError", view(a), view(out));
  EXPECT_NE(what.find("writes it at line 13"), std::string::npos) << what;
  EXPECT_NE(what.find("reads it at line 13"), std::string::npos) << what;
}

constexpr const char *kAtomics = R"src(
from numba import cuda, int32

@cuda.jit(debug=True)
def histogram(values, out):
    bins = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        bins[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(bins, values[t] % 4, 1)
    cuda.syncthreads()
    if t < 4:
        out[t] = bins[t]
)src";

TEST_F(KernelCheck, AtomicsOnSharedMemoryAreNotRacesAndDebugTrueChecks) {
  ufjit::Kernel histogram = rt().kernel(kAtomics);
  std::vector<int64_t> values(32);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  std::vector<int32_t> out(4, 0);
  EXPECT_EQ(launch(histogram, {.grid = 1, .block = 32}, "", view(values), view(out)), "");
  EXPECT_EQ(out, (std::vector<int32_t>{8, 8, 8, 8}));
  // debug=True checks every launch: 33 threads read past `values`.
  std::vector<int64_t> short_values(31, 0);
  const std::string what = launch(histogram, {.grid = 1, .block = 32}, "IndexError", view(short_values), view(out));
  EXPECT_NE(what.find("axis 0 of 'values' (index 31, size 31), in thread (31, 0, 0)"), std::string::npos) << what;
}

TEST_F(KernelCheck, UfjitCheckMakesEveryKernelChecked) {
  const ScopedEnv check("UFJIT_CHECK", "1");
  ufjit::Kernel last = rt().kernel(kRace);
  std::vector<int32_t> out(4, -1);
  EXPECT_NE(launch(last, {.grid = 1, .block = 4}, "RuntimeError", view(out)).find("data race"), std::string::npos);
}

}  // namespace
