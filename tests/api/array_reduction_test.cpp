// Whole-array reductions in gufunc bodies (a.sum(), np.max(a), ...;
// LANGUAGE.md section 8), on the default target (UFJIT_TARGET=cuda runs this
// suite on the GPU). Expected values are computed here by plain loops in
// NumPy's result types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

constexpr const char *kStats = R"src(
import numpy as np
from numba import guvectorize

@guvectorize(['void(float64[:, :], float64[:])'], '(m,n)->()')
def total(a, out):
    out[0] = a.sum()

@guvectorize(['void(float64[:, :], float64[:])'], '(m,n)->()')
def product(a, out):
    out[0] = np.prod(a)

@guvectorize(['void(float64[:, :], float64[:])'], '(m,n)->()')
def smallest(a, out):
    out[0] = a.min()

@guvectorize(['void(float64[:, :], float64[:])'], '(m,n)->()')
def largest(a, out):
    out[0] = np.amax(a)

@guvectorize(['void(float64[:, :], float64[:])'], '(m,n)->()')
def average(a, out):
    out[0] = a.mean()

@guvectorize(['void(float64[:, :], int64[:])'], '(m,n)->()')
def where_min(a, out):
    out[0] = a.argmin()

@guvectorize(['void(float64[:, :], int64[:])'], '(m,n)->()')
def where_max(a, out):
    out[0] = np.argmax(a)

@guvectorize(['void(float64[:, :], int64[:])'], '(m,n)->()')
def truth(a, out):
    out[0] = a.all() + 2 * np.any(a)

@guvectorize(['void(float64[:, :], float64[:])'], '(m,n)->()')
def guarded_min(a, out):
    out[0] = a.min() if a.size > 0 else -1.0
)src";

constexpr const char *kInt8 = R"src(
import numpy as np
from numba import guvectorize

@guvectorize(['void(int8[:], int64[:])'], '(n)->()')
def wide_sum(a, out):
    out[0] = a.sum()

@guvectorize(['void(int8[:], float64[:])'], '(n)->()')
def int_mean(a, out):
    out[0] = np.mean(a[::-1])
)src";

class ArrayReduction : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>();
    set_ = std::make_unique<ufjit::UfuncSet>(rt_->load(kStats, "stats.py"));
  }
  static void TearDownTestSuite() {
    set_.reset();
    rt_.reset();
  }
  static double one(const std::string &name, const std::vector<double> &a, int64_t m, int64_t n) {
    ufjit::Ufunc f = (*set_)[name];
    return rt_->to_host(f(ufjit::view(a.data(), {m, n})).view()).to_vector<double>().at(0);
  }
  static int64_t one_int(const std::string &name, const std::vector<double> &a, int64_t m, int64_t n) {
    ufjit::Ufunc f = (*set_)[name];
    return rt_->to_host(f(ufjit::view(a.data(), {m, n})).view()).to_vector<int64_t>().at(0);
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static std::unique_ptr<ufjit::UfuncSet> set_;
};
std::unique_ptr<ufjit::Runtime> ArrayReduction::rt_;
std::unique_ptr<ufjit::UfuncSet> ArrayReduction::set_;

TEST_F(ArrayReduction, SumProdMinMaxMeanOfAMatrixInCOrder) {
  const std::vector<double> a{1.5, -2, 3, 4, 0.5, 6};
  double sum = 0;
  double prod = 1;
  for (double x : a) {
    sum += x;
    prod *= x;
  }
  EXPECT_EQ(one("total", a, 2, 3), sum);
  EXPECT_EQ(one("product", a, 2, 3), prod);
  EXPECT_EQ(one("smallest", a, 2, 3), -2.0);
  EXPECT_EQ(one("largest", a, 2, 3), 6.0);
  EXPECT_EQ(one("average", a, 2, 3), sum / 6.0);
  EXPECT_EQ(one_int("where_min", a, 2, 3), 1);
  EXPECT_EQ(one_int("where_max", a, 3, 2), 5);
  EXPECT_EQ(one_int("truth", a, 2, 3), 1 + 2);
}

TEST_F(ArrayReduction, TheFirstExtremeWinsAndNaNPropagates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(one_int("where_max", {1, 7, 7, 2}, 2, 2), 1);
  EXPECT_EQ(one_int("where_min", {3, 0, 5, 0}, 1, 4), 1);
  EXPECT_TRUE(std::isnan(one("largest", {1, nan, 9, 2}, 2, 2)));
  EXPECT_TRUE(std::isnan(one("smallest", {nan, 1, -9, 2}, 2, 2)));
  EXPECT_EQ(one_int("where_max", {1, 9, nan, nan}, 2, 2), 2);
  EXPECT_EQ(one_int("truth", {0, 0, nan, 0}, 2, 2), 2);  // NaN is true
  EXPECT_EQ(one_int("truth", {0, 0, 0, 0}, 2, 2), 0);
}

TEST_F(ArrayReduction, EmptyArraysGiveTheIdentityOrRaiseValueError) {
  const std::vector<double> none;
  EXPECT_EQ(one("total", none, 0, 3), 0.0);
  EXPECT_EQ(one("product", none, 3, 0), 1.0);
  EXPECT_TRUE(std::isnan(one("average", none, 0, 0)));
  EXPECT_EQ(one_int("truth", none, 0, 2), 1);  // all() of nothing is True, any() False
  EXPECT_EQ(one("guarded_min", none, 0, 2), -1.0);
  try {
    one("largest", none, 0, 4);
    FAIL() << "no KernelError for the max of an empty array";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "ValueError");
    EXPECT_EQ(e.message(), "zero-size array to reduction operation maximum which has no identity");
    EXPECT_EQ(e.line(), 19);
    EXPECT_EQ(e.column(), 17);
  }
  EXPECT_THROW(one_int("where_min", none, 2, 0), ufjit::KernelError);
}

TEST_F(ArrayReduction, SmallIntegersSumInInt64AndAverageInFloat64) {
  ufjit::UfuncSet s = rt_->load(kInt8, "int8.py");
  std::vector<int8_t> a{100, 100, 100, -3};
  EXPECT_EQ(rt_->to_host(s["wide_sum"](ufjit::view(a)).view()).to_vector<int64_t>().at(0), 297);
  EXPECT_EQ(rt_->to_host(s["int_mean"](ufjit::view(a)).view()).to_vector<double>().at(0), 297.0 / 4.0);
}

constexpr const char *kHalf = R"src(
import numpy as np
from numba import guvectorize

@guvectorize(['void(float16[:], float16[:])'], '(n)->()')
def half_sum(a, out):
    out[0] = a.sum()

@guvectorize(['void(float16[:], float16[:])'], '(n)->()')
def half_prod(a, out):
    out[0] = np.prod(a)

@guvectorize(['void(float16[:], float16[:])'], '(n)->()')
def half_mean(a, out):
    out[0] = a.mean()
)src";

TEST_F(ArrayReduction, Float16SumsProductsAndMeansAccumulateInFloat32AsNumPy) {
  // NumPy's half loops accumulate in float: 3,000 ones sum to 3000 (in
  // float16 the sum stops at 2048), and 2^20 * 2^-20 is 1 (float16: inf).
  ufjit::UfuncSet s = rt_->load(kHalf, "half.py");
  auto apply = [&](const char *name, const std::vector<ufjit::Half> &a) {
    return rt_->to_host(s[name](ufjit::view(a)).view()).to_vector<ufjit::Half>().at(0).bits;
  };
  const std::vector<ufjit::Half> ones(3000, ufjit::Half{0x3c00});  // 1.0
  EXPECT_EQ(apply("half_sum", ones), 0x69dc);                      // 3000.0
  EXPECT_EQ(apply("half_mean", ones), 0x3c00);
  std::vector<ufjit::Half> factors(20, ufjit::Half{0x4000});  // 2.0
  factors.resize(40, ufjit::Half{0x3800});                    // 0.5
  EXPECT_EQ(apply("half_prod", factors), 0x3c00);
}

}  // namespace
