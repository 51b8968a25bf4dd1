// The language features of issue 10 on the GPU: boundscheck=True raises
// IndexError through the device's error flag, whole-array reductions in a
// gufunc body give NumPy's values per outer element (one thread each), and a
// failed assert raises AssertionError. Expected values computed here.
#include <cmath>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

constexpr const char *kPick = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()", target="cuda", boundscheck=True)
def pick(a, i, out):
    out[0] = a[i]
)src";

constexpr const char *kRowStats = R"src(
import numpy as np
from numba import guvectorize

@guvectorize(["void(float32[:], float32[:])"], "(n)->(n)", target="cuda")
def row_stats(a, out):
    out[0] = a.sum()
    out[1] = np.max(a)
    out[2] = a.argmin()
    out[3] = a.mean()
)src";

constexpr const char *kAssert = R"src(
from numba import vectorize

@vectorize(["float32(float32)"], target="cuda")
def positive(x):
    assert x > 0, "not positive"
    return x
)src";

class GpuLanguage : public GpuTest {};

TEST_F(GpuLanguage, BoundscheckReadsInRangeAndRaisesIndexErrorOutOfRange) {
  Ufunc f = rt().vectorize(kPick, {}, "pick.py");
  std::vector<double> a{10, 11, 12, 13};
  const std::size_t n = (1 << 16) + 1;
  std::vector<int64_t> idx(n);
  for (std::size_t k = 0; k < n; ++k) idx[k] = static_cast<int64_t>(k % 8) - 4;  // -4 .. 3
  Array dout = f(rt().to_device(a), rt().to_device(idx));
  std::vector<double> got = download<double>(rt(), dout);
  for (std::size_t k = 0; k < n; ++k) {
    const int64_t i = idx[k] < 0 ? idx[k] + 4 : idx[k];
    ASSERT_EQ(got[k], a[static_cast<std::size_t>(i)]) << k;
  }
  idx[n - 1] = 4;
  try {
    f(rt().to_device(a), rt().to_device(idx));
    FAIL() << "no KernelError for index 4 of 4 elements";
  } catch (const KernelError &e) {
    EXPECT_EQ(e.exception(), "IndexError");
    EXPECT_EQ(e.message(), "index is out of bounds");
    EXPECT_EQ(e.line(), 6);
    EXPECT_EQ(e.column(), 16);
  }
}

TEST_F(GpuLanguage, ArrayReductionsPerRowMatchPlainLoops) {
  Ufunc f = rt().vectorize(kRowStats, {}, "rows.py");
  const int64_t rows = 1000;
  const int64_t cols = 5;
  std::vector<float> a = random_values<float>(static_cast<std::size_t>(rows * cols), 7, -10.0, 10.0);
  Array dout = f(rt().to_device(view(a.data(), {rows, cols})));
  std::vector<float> got = download<float>(rt(), dout);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = a.data() + r * cols;
    float sum = 0;
    float best = row[0];
    int64_t at_min = 0;
    for (int64_t c = 0; c < cols; ++c) {
      sum += row[c];
      best = std::max(best, row[c]);
      if (row[c] < row[at_min]) at_min = c;
    }
    const float *out = got.data() + r * cols;
    ASSERT_EQ(out[0], sum) << r;
    ASSERT_EQ(out[1], best) << r;
    ASSERT_EQ(out[2], static_cast<float>(at_min)) << r;
    ASSERT_EQ(out[3], sum / static_cast<float>(cols)) << r;
  }
}

TEST_F(GpuLanguage, AFailedAssertRaisesAssertionError) {
  Ufunc f = rt().vectorize(kAssert, {}, "assert.py");
  std::vector<float> x(4096, 1.0f);
  EXPECT_EQ(download<float>(rt(), f(rt().to_device(x))), x);
  x[4000] = -1.0f;
  try {
    f(rt().to_device(x));
    FAIL() << "no KernelError";
  } catch (const KernelError &e) {
    EXPECT_EQ(e.exception(), "AssertionError");
    EXPECT_EQ(e.message(), "not positive");
  }
}

}  // namespace
}  // namespace ufjit::gpu_testing
