// `raise` in a kernel used through reduce, accumulate and outer: reported as
// ufjit::KernelError after the call, as an ordinary call reports it (LANGUAGE.md
// section 5), on the default target (UFJIT_TARGET=cuda runs this suite on
// the GPU). Sizes cover the one-segment, the chunked and the threaded paths.
// The kernel raises when either operand is negative, so that a negative
// element reaches the function whatever order a target combines in.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using ufjit::Array;

constexpr const char *kCheckedAdd = R"src(
from numba import vectorize

@vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)
def checked_add(a, b):
    if a < 0 or b < 0:
        raise ValueError("negative operand")
    return a + b
)src";

class MethodsRaise : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>();
    add_ = rt_->vectorize(kCheckedAdd, {}, "checked_add.py");
  }
  static void TearDownTestSuite() {
    add_ = ufjit::Ufunc();
    rt_.reset();
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static ufjit::Ufunc add_;
};
std::unique_ptr<ufjit::Runtime> MethodsRaise::rt_;
ufjit::Ufunc MethodsRaise::add_;

std::vector<int64_t> ones(int64_t n) { return std::vector<int64_t>(static_cast<std::size_t>(n), 1); }

/// Runs `call`, expects the KernelError of checked_add.py's raise.
template <typename Call>
void expect_raise(Call call, const std::string &what) {
  try {
    call();
    ADD_FAILURE() << what << ": no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "ValueError") << what;
    EXPECT_EQ(e.message(), "negative operand") << what;
    EXPECT_EQ(e.file(), "checked_add.py") << what;
    EXPECT_EQ(e.line(), 7) << what;
    EXPECT_NE(std::string(e.what()).find("checked_add.py:7:9: ValueError: negative operand"), std::string::npos)
        << e.what();
  }
}

TEST_F(MethodsRaise, ReduceReportsARaiseAtEverySize) {
  for (int64_t n : {2, 255, 256, 257, 4097, (1 << 20) + 1}) {
    for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
      std::vector<int64_t> a = ones(n);
      a[static_cast<std::size_t>(at)] = -5;
      expect_raise([&] { add_.reduce(a); }, "reduce n=" + std::to_string(n) + " at " + std::to_string(at));
    }
  }
  // Many rows (one segment per row) and the chunked path of few long rows.
  std::vector<int64_t> rows = ones(3 * 200000);
  rows[123456] = -1;
  expect_raise([&] { add_.reduce(ufjit::view(rows.data(), {3, 200000}), {.axes = {1}}); }, "long rows");
  expect_raise([&] { add_.reduce(ufjit::view(rows.data(), {200000, 3}), {.axes = {1}}); }, "short rows");
  expect_raise([&] { add_.reduce(ufjit::view(rows.data(), {3, 200000}), {.all_axes = true}); }, "all axes");
}

TEST_F(MethodsRaise, ARaiseLeavesOutUntouchedAndTheNextCallIsClean) {
  std::vector<int64_t> a = ones(100000);
  a[99999] = -2;
  std::vector<int64_t> out(1, 42);
  expect_raise([&] { add_.reduce(a, {}, ufjit::out(ufjit::view(out.data(), {}))); }, "reduce into out");
  EXPECT_EQ(out[0], 42) << "out was written by a raising reduce";
  a[99999] = 1;
  EXPECT_EQ(add_.reduce(a).to_vector<int64_t>(), std::vector<int64_t>{100000});
}

TEST_F(MethodsRaise, AccumulateReportsARaise) {
  for (int64_t n : {2, 33, 257, 100003, (1 << 20) + 1}) {
    std::vector<double> a(static_cast<std::size_t>(n), 0.5);
    a[static_cast<std::size_t>(n * 2 / 3)] = -1.0;
    expect_raise([&] { add_.accumulate(a); }, "accumulate n=" + std::to_string(n));
  }
  std::vector<int64_t> grid = ones(4 * 5000);
  grid[4999] = -3;
  expect_raise([&] { add_.accumulate(ufjit::view(grid.data(), {4, 5000}), {.axis = 0}); }, "accumulate axis 0");
  expect_raise([&] { add_.accumulate(ufjit::view(grid.data(), {4, 5000}), {.axis = 1}); }, "accumulate axis 1");
}

TEST_F(MethodsRaise, OuterAndMaskedReduceAndInitialReportARaise) {
  const std::vector<int64_t> x = {1, 2, -3};
  const std::vector<int64_t> y = {4, 5};
  expect_raise([&] { add_.outer(x, y); }, "outer");
  // The masked-out negative element is never an operand: no raise (NumPy).
  std::vector<int64_t> a = {1, -7, 2, 3};
  std::vector<uint8_t> keep = {1, 0, 1, 1};
  ufjit::ArrayView mask = ufjit::view(keep.data(), {4});
  mask.dtype = ufjit::DType::Bool;
  EXPECT_EQ(add_.reduce(a, {.where = mask}).to_vector<int64_t>(), std::vector<int64_t>{6});
  keep[1] = 1;
  expect_raise([&] { add_.reduce(a, {.where = mask}); }, "masked reduce");
  expect_raise([&] { add_.reduce(std::vector<int64_t>{1, 2}, {.initial = -1}); }, "negative initial");
}

}  // namespace
