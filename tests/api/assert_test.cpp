// `assert` in kernel bodies (LANGUAGE.md section 5): `assert test, "message"`
// raises AssertionError through the raise flag when the test is false, as
// Numba's nopython mode does, on the default target (UFJIT_TARGET=cuda runs
// this suite on the GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

constexpr const char *kChecked = R"src(
import math
from numba import vectorize

@vectorize(["float64(float64)"])
def root(x):
    assert x >= 0, "negative input"
    assert x != 7.0
    return math.sqrt(x)
)src";

TEST(Assert, ATrueAssertionLetsTheElementThrough) {
  ufjit::Runtime rt;
  ufjit::Ufunc f = rt.vectorize(kChecked, {}, "root.py");
  std::vector<double> x{0, 4, 2.25};
  EXPECT_EQ(rt.to_host(f(x).view()).to_vector<double>(), (std::vector<double>{0, 2, 1.5}));
}

TEST(Assert, AFalseAssertionRaisesAssertionErrorWithItsMessageAtTheAssert) {
  ufjit::Runtime rt;
  ufjit::Ufunc f = rt.vectorize(kChecked, {}, "root.py");
  std::vector<double> x(1000, 1.0);
  x[500] = -1.0;
  try {
    f(x);
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "AssertionError");
    EXPECT_EQ(e.message(), "negative input");
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.column(), 5);
  }
  try {
    f(std::vector<double>{7.0});
    FAIL() << "no KernelError for 7";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "AssertionError");
    EXPECT_EQ(e.message(), "");
    EXPECT_EQ(e.line(), 8);
  }
}

}  // namespace
