// Ufunc methods on device arrays: reductions at launch boundaries (one block
// per row, and the two-launch chunked path for few long rows), every axis of
// a 3-d device array, accumulate and outer with device results, and
// integer reductions that must be the same bits on every run (a fixed tree).
// Expected values: exact integer sums by loops; float data are small
// integers, so every order gives the same exact sum.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_methods_util.h"
#include "gpu_test_util.h"

namespace {

using ufjit::gpu_testing::download;
using ufjit::gpu_testing::GpuTest;
using Shape = std::vector<int64_t>;

constexpr const char *kAdd = R"SRC(
@vectorize(["int64(int64, int64)", "float32(float32, float32)", "float64(float64, float64)"], identity=0)
def add(a, b):
    return a + b
)SRC";

constexpr const char *kMax = R"SRC(
@vectorize(["int32(int32, int32)", "float32(float32, float32)"])
def maximum(a, b):
    return a if a > b else b
)SRC";

template <typename T>
std::vector<T> data(int64_t n) {
  return ufjit::gpu_testing::method_data<T>(n);
}

class GpuMethodsTest : public GpuTest {};

TEST_F(GpuMethodsTest, DeviceReduceAtLaunchBoundaries) {
  ufjit::Ufunc add = rt().vectorize(kAdd);
  for (int64_t n : {1, 255, 256, 257, 1023, 1024, 1025, 8191, 8192, 8193, (1 << 20) + 3}) {
    const std::vector<int64_t> a = data<int64_t>(n);
    int64_t want = 0;
    for (int64_t v : a) want += v;
    ufjit::Array d = rt().to_device(a);
    ufjit::Array r = add.reduce(d);
    ASSERT_EQ(r.residence(), ufjit::Residence::Device);
    EXPECT_EQ(download<int64_t>(rt(), r)[0], want) << "n = " << n;
    ufjit::Array f = add.reduce(rt().to_device(data<float>(n)));
    EXPECT_EQ(download<float>(rt(), f)[0], static_cast<float>(want)) << "float32, n = " << n;
  }
}

TEST_F(GpuMethodsTest, DeviceReduceEveryAxisOf3d) {
  ufjit::Ufunc add = rt().vectorize(kAdd);
  const Shape shape{3, 40, 20000};  // axis 2: few long rows -> the chunked path
  const std::vector<int64_t> a = data<int64_t>(3 * 40 * 20000);
  ufjit::Array d = rt().to_device(a);
  ufjit::ArrayView v = d.view();
  v.shape = shape;
  v.strides = ufjit::ArrayView::c_strides(shape, 8);
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> want;
    if (axis == 0) {
      want.assign(40 * 20000, 0);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t k = 0; k < 40 * 20000; ++k) want[static_cast<std::size_t>(k)] += a[static_cast<std::size_t>(i * 800000 + k)];
    } else if (axis == 1) {
      want.assign(3 * 20000, 0);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 40; ++j)
          for (int64_t k = 0; k < 20000; ++k)
            want[static_cast<std::size_t>(i * 20000 + k)] += a[static_cast<std::size_t>((i * 40 + j) * 20000 + k)];
    } else {
      want.assign(3 * 40, 0);
      for (int64_t r = 0; r < 120; ++r)
        for (int64_t k = 0; k < 20000; ++k) want[static_cast<std::size_t>(r)] += a[static_cast<std::size_t>(r * 20000 + k)];
    }
    ufjit::Array r = add.reduce(v, {.axes = {axis}});
    EXPECT_EQ(download<int64_t>(rt(), r), want) << "axis " << axis;
  }
  int64_t total = 0;
  for (int64_t x : a) total += x;
  EXPECT_EQ(download<int64_t>(rt(), add.reduce(v, {.all_axes = true, .initial = 5}))[0], total + 5);
}

TEST_F(GpuMethodsTest, FloatReductionIsTheSameBitsEveryRun) {
  ufjit::Ufunc add = rt().vectorize(kAdd);
  std::vector<double> a = ufjit::gpu_testing::random_values<double>((1 << 22) + 17, 7, -1.0, 1.0);
  ufjit::Array d = rt().to_device(a);
  const double first = download<double>(rt(), add.reduce(d))[0];
  double exact = 0.0;
  for (double x : a) exact += x;
  EXPECT_NEAR(first, exact, 1e-9 * static_cast<double>(a.size()));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(download<double>(rt(), add.reduce(d))[0], first);
  }
}

TEST_F(GpuMethodsTest, DeviceAccumulateAndOuter) {
  ufjit::Ufunc maximum = rt().vectorize(kMax);
  for (int64_t n : {1, 257, 100003}) {
    const std::vector<int32_t> a = data<int32_t>(n);
    std::vector<int32_t> want(a.size());
    int32_t m = a[0];
    for (std::size_t i = 0; i < a.size(); ++i) want[i] = m = std::max(m, a[i]);
    ufjit::Array r = maximum.accumulate(rt().to_device(a));
    ASSERT_EQ(r.residence(), ufjit::Residence::Device);
    EXPECT_EQ(download<int32_t>(rt(), r), want) << n;
  }
  const std::vector<float> x = {1, 5, 3};
  const std::vector<float> y = {2, 4};
  ufjit::Array o = maximum.outer(rt().to_device(x), rt().to_device(y));
  EXPECT_EQ(o.shape(), (Shape{3, 2}));
  EXPECT_EQ(download<float>(rt(), o), (std::vector<float>{2, 4, 5, 5, 3, 4}));
}

}  // namespace
