// `raise` in kernel bodies (LANGUAGE.md section 5, "Errors in kernels"),
// through the C++ API on the default target (UFJIT_TARGET=cuda runs this
// suite on the GPU). Expected values are computed here by plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using ufjit::Array;

constexpr const char *kCheckedSqrt = R"src(
import math
from numba import vectorize

@vectorize(["float64(float64)"])
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)
)src";

// A raise in a helper ends the element; two raise sites, the message empty
// for one.
constexpr const char *kHelperRaise = R"src(
from numba import vectorize, njit

@njit
def inverse(x):
    if x == 0:
        raise ZeroDivisionError
    return 1.0 / x

@vectorize(["float64(float64)"])
def inv(x):
    if x > 1e300:
        raise OverflowError("too big")
    return inverse(x)
)src";

constexpr const char *kFirstCol = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def first_positive(a, out):
    for i in range(a.shape[0]):
        if a[i] > 0:
            out[0] = a[i]
            return
    raise LookupError("no positive element")
)src";

class Raise : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }
  static std::unique_ptr<ufjit::Runtime> rt_;
};
std::unique_ptr<ufjit::Runtime> Raise::rt_;

TEST_F(Raise, OneRaisingElementOutOfAMillionReportsTheErrorAfterTheCall) {
  ufjit::Ufunc f = rt_->vectorize(kCheckedSqrt, {}, "checked_sqrt.py");
  std::vector<double> x(1000000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
  x[765432] = -1.0;
  try {
    f(x);
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "ValueError");
    EXPECT_EQ(e.message(), "negative input");
    EXPECT_EQ(e.file(), "checked_sqrt.py");
    EXPECT_EQ(e.line(), 8);
    EXPECT_EQ(e.column(), 9);
    const std::string what = e.what();
    EXPECT_NE(what.find("checked_sqrt.py:8:9: ValueError: negative input"), std::string::npos) << what;
    EXPECT_NE(what.find("ufunc 'checked_sqrt'"), std::string::npos) << what;
  }
}

TEST_F(Raise, NoRaiseLeavesTheResultsRight) {
  ufjit::Ufunc f = rt_->vectorize(kCheckedSqrt, {}, "checked_sqrt.py");
  std::vector<double> x(100003);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) * 0.25;
  const std::vector<double> got = rt_->to_host(f(x).view()).to_vector<double>();
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], std::sqrt(x[i])) << i;
  }
  // The flag is fresh for every call: a raising call, then a clean one.
  std::vector<double> bad{1.0, -2.0};
  EXPECT_THROW(f(bad), ufjit::KernelError);
  EXPECT_EQ(rt_->to_host(f(std::vector<double>{4.0, 9.0}).view()).to_vector<double>(),
            (std::vector<double>{2.0, 3.0}));
}

TEST_F(Raise, ARaiseInAHelperIsReportedWithItsOwnSite) {
  ufjit::Ufunc f = rt_->vectorize(kHelperRaise, {}, "inv.py");
  std::vector<double> x{1.0, 2.0, 0.0, 4.0};
  try {
    f(x);
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "ZeroDivisionError");
    EXPECT_EQ(e.message(), "");
    EXPECT_EQ(e.line(), 7);
    EXPECT_NE(std::string(e.what()).find("inv.py:7:9: ZeroDivisionError (raised by ufunc 'inv'"),
              std::string::npos)
        << e.what();
  }
  std::vector<double> big{1.0, 1e301};
  try {
    f(big);
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "OverflowError");
    EXPECT_EQ(e.message(), "too big");
    EXPECT_EQ(e.line(), 13);
  }
  EXPECT_EQ(rt_->to_host(f(std::vector<double>{2.0, 4.0}).view()).to_vector<double>(),
            (std::vector<double>{0.5, 0.25}));
}

TEST_F(Raise, AGufuncCoreRaisesForOneOuterElement) {
  ufjit::Ufunc f = rt_->vectorize(kFirstCol, {}, "first.py");
  std::vector<double> ok{-1, 2, 3, 5, -4, 6};
  EXPECT_EQ(rt_->to_host(f(ufjit::view(ok.data(), {2, 3})).view()).to_vector<double>(),
            (std::vector<double>{2, 5}));
  std::vector<double> bad{-1, 2, 3, -5, -4, -6};
  try {
    f(ufjit::view(bad.data(), {2, 3}));
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "LookupError");
    EXPECT_EQ(e.message(), "no positive element");
    EXPECT_EQ(e.line(), 10);
  }
}

}  // namespace
