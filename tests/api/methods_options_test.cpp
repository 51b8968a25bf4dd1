// NumPy's dtype=, out= and where= of reduce and accumulate, through the
// public API on the default target (UFJIT_TARGET=cuda runs it on the GPU).
// Expected values are NumPy 1.24's (the expression is beside each literal)
// or loops over the same small-integer data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

#include "call_test_util.h"

namespace {

using ufjit::Array;
using ufjit::DType;
using Shape = std::vector<int64_t>;

constexpr const char *kSource = R"SRC(
from numba import vectorize

@vectorize(["int64(int64, int64)", "int32(int32, int32)", "float32(float32, float32)",
            "float64(float64, float64)"], identity=0)
def add(a, b):
    return a + b

@vectorize(["int64(int64, int64)", "float64(float64, float64)"])
def maximum(a, b):
    return a if a > b else b

@vectorize(["int64(int64, int64)"], identity=1)
def multiply(a, b):
    return a * b
)SRC";

class MethodOptions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>();
    set_ = std::make_unique<ufjit::UfuncSet>(rt_->load(kSource));
  }
  static void TearDownTestSuite() {
    set_.reset();
    rt_.reset();
  }
  static ufjit::Ufunc f(const char *name) { return (*set_)[name]; }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static std::unique_ptr<ufjit::UfuncSet> set_;
};
std::unique_ptr<ufjit::Runtime> MethodOptions::rt_;
std::unique_ptr<ufjit::UfuncSet> MethodOptions::set_;

/// A bool view over 0/1 bytes.
ufjit::ArrayView mask(std::vector<uint8_t> &bytes, const Shape &shape) {
  ufjit::ArrayView v = ufjit::view(bytes.data(), shape);
  v.dtype = DType::Bool;
  v.strides = ufjit::ArrayView::c_strides(shape, 1);
  return v;
}

const std::vector<int64_t> kArange6 = {0, 1, 2, 3, 4, 5};  // np.arange(6).reshape(2, 3)

TEST_F(MethodOptions, DtypeChoosesTheLoopAndTheResultDtype) {
  // np.add.reduce(np.array([1.5, 2.5]), dtype=np.int64) == 3: the input cast unsafely
  Array r = f("add").reduce(std::vector<double>{1.5, 2.5}, {.dtype = DType::Int64});
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(r.to_vector<int64_t>(), std::vector<int64_t>{3});
  // np.add.reduce(np.array([1, 2]), dtype=np.float32) == 3.0 (float32)
  Array f32 = f("add").reduce(std::vector<int64_t>{1, 2}, {.dtype = DType::Float32});
  EXPECT_EQ(f32.dtype(), DType::Float32);
  EXPECT_EQ(f32.to_vector<float>(), std::vector<float>{3.0f});
  // np.add.reduce(np.arange(6).reshape(2, 3), axis=1, dtype=np.int32) == [3, 12] (int32)
  Array i32 = f("add").reduce(ufjit::view(kArange6.data(), {2, 3}), {.axes = {1}, .dtype = DType::Int32});
  EXPECT_EQ(i32.dtype(), DType::Int32);
  EXPECT_EQ(i32.to_vector<int32_t>(), (std::vector<int32_t>{3, 12}));
  // np.add.accumulate(np.array([1.5, 2.5]), dtype=np.int64) == [1, 3]
  Array acc = f("add").accumulate(std::vector<double>{1.5, 2.5}, {.dtype = DType::Int64});
  EXPECT_EQ(acc.dtype(), DType::Int64);
  EXPECT_EQ(acc.to_vector<int64_t>(), (std::vector<int64_t>{1, 3}));
  // The int32 loop wraps as NumPy's does: np.add.reduce(np.array([2**31 - 1, 1]), dtype=np.int32) == -2**31
  EXPECT_EQ(f("add").reduce(std::vector<int64_t>{2147483647, 1}, {.dtype = DType::Int32}).to_vector<int32_t>(),
            std::vector<int32_t>{-2147483647 - 1});
}

TEST_F(MethodOptions, ASignatureLessUfuncCompilesTheLoopOfTheDtype) {
  ufjit::Ufunc dynamic = rt_->vectorize("from numba import vectorize\n@vectorize(identity=0)\ndef add(a, b):\n    return a + b\n");
  Array r = dynamic.reduce(std::vector<double>{1.5, 2.5}, {.dtype = DType::Int64});
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(r.to_vector<int64_t>(), std::vector<int64_t>{3});
  Array s = dynamic.accumulate(std::vector<int64_t>{1, 2, 3}, {.dtype = DType::Float32});
  EXPECT_EQ(s.dtype(), DType::Float32);
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{1, 3, 6}));
}

TEST_F(MethodOptions, ADtypeWithoutItsLoopIsADispatchError) {
  try {
    f("add").reduce(std::vector<int64_t>{1, 2}, {.dtype = DType::Int8});
    FAIL() << "dtype=int8 reduced without an int8 loop";
  } catch (const ufjit::DispatchError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("No loop matching the specified signature"), std::string::npos) << what;
    EXPECT_NE(what.find("dtype=int8"), std::string::npos) << what;
  }
  EXPECT_THROW(f("maximum").accumulate(std::vector<int64_t>{1, 2}, {.dtype = DType::Float32}), ufjit::DispatchError);
}

TEST_F(MethodOptions, OutChoosesTheLoopAndTakesTheResultCastToItsDtype) {
  // np.add.reduce(np.array([2**31 - 1, 1], dtype=np.int32), out=np.empty((), np.int64)) == 2**31:
  // the loop is resolved on (out, a), so int64, and does not wrap.
  const std::vector<int32_t> big = {2147483647, 1};
  int64_t wide = 0;
  f("add").reduce(big, {}, ufjit::out(ufjit::view(&wide, {})));
  EXPECT_EQ(wide, int64_t{2147483648});
  // np.add.reduce(np.array([1.5, 2.5]), out=np.empty((), np.int64)) == 4: float64 loop, then cast
  int64_t four = 0;
  f("add").reduce(std::vector<double>{1.5, 2.5}, {}, ufjit::out(ufjit::view(&four, {})));
  EXPECT_EQ(four, 4);
  // np.add.reduce(np.array([1.5, 2.5]), dtype=np.int64, out=np.empty((), np.float64)) == 3.0
  double three = 0;
  f("add").reduce(std::vector<double>{1.5, 2.5}, {.dtype = DType::Int64}, ufjit::out(ufjit::view(&three, {})));
  EXPECT_EQ(three, 3.0);
  // np.add.accumulate(np.array([1.5, 2.5]), out=np.empty(2, np.int64)) == [1, 4]
  std::vector<int64_t> acc(2, -1);
  f("add").accumulate(std::vector<double>{1.5, 2.5}, {}, ufjit::out(acc));
  EXPECT_EQ(acc, (std::vector<int64_t>{1, 4}));
  // keepdims: out (2, 1) takes np.add.reduce(np.arange(6).reshape(2, 3), axis=1, keepdims=True) == [[3], [12]]
  std::vector<double> kept(2, -1.0);
  f("add").reduce(ufjit::view(kArange6.data(), {2, 3}), {.axes = {1}, .keepdims = true},
                  ufjit::out(ufjit::view(kept.data(), {2, 1})));
  EXPECT_EQ(kept, (std::vector<double>{3.0, 12.0}));
}

TEST_F(MethodOptions, OutOfTheWrongDimsOrShapeIsRefusedAsNumPyRefusesIt) {
  std::vector<double> two_by_one(2);
  try {
    f("add").reduce(ufjit::view(kArange6.data(), {2, 3}), {.axes = {1}},
                    ufjit::out(ufjit::view(two_by_one.data(), {2, 1})));
    FAIL() << "out of 2 dims took a 1-d result";
  } catch (const ufjit::ShapeError &e) {
    EXPECT_NE(std::string(e.what()).find("has the wrong number of dimensions: Found 2 but expected 1"),
              std::string::npos)
        << e.what();
  }
  std::vector<double> three(3, -1.0);
  EXPECT_THROW(f("add").reduce(ufjit::view(kArange6.data(), {2, 3}), {.axes = {1}}, ufjit::out(three)),
               ufjit::ShapeError);
  EXPECT_EQ(three, std::vector<double>(3, -1.0)) << "a refused out was written";
  EXPECT_THROW(f("add").accumulate(std::vector<double>{1.5, 2.5}, {}, ufjit::out(three)), ufjit::ShapeError);
}

TEST_F(MethodOptions, WhereMatchesNumPy) {
  const ufjit::ArrayView a = ufjit::view(kArange6.data(), {2, 3});
  std::vector<uint8_t> tft = {1, 0, 1};
  // np.add.reduce(np.arange(6).reshape(2, 3), axis=1, where=[True, False, True]) == [2, 8]
  EXPECT_EQ(f("add").reduce(a, {.axes = {1}, .where = mask(tft, {3})}).to_vector<int64_t>(),
            (std::vector<int64_t>{2, 8}));
  // ... initial=10 == [12, 18]; keepdims=True == [[2], [8]]
  EXPECT_EQ(f("add").reduce(a, {.axes = {1}, .initial = 10, .where = mask(tft, {3})}).to_vector<int64_t>(),
            (std::vector<int64_t>{12, 18}));
  Array kept = f("add").reduce(a, {.axes = {1}, .keepdims = true, .where = mask(tft, {3})});
  EXPECT_EQ(kept.shape(), (Shape{2, 1}));
  EXPECT_EQ(kept.to_vector<int64_t>(), (std::vector<int64_t>{2, 8}));
  // np.maximum.reduce(..., axis=1, where=[True, False, True], initial=-5) == [2, 5]
  EXPECT_EQ(f("maximum").reduce(a, {.axes = {1}, .initial = -5, .where = mask(tft, {3})}).to_vector<int64_t>(),
            (std::vector<int64_t>{2, 5}));
  // np.add.reduce(np.arange(6).reshape(2, 3), where=[[True], [False]], axis=None) == 3
  std::vector<uint8_t> first_row = {1, 0};
  EXPECT_EQ(f("add").reduce(a, {.all_axes = true, .where = mask(first_row, {2, 1})}).to_vector<int64_t>(),
            std::vector<int64_t>{3});
  // where=[True, False, True] into out=np.empty(2) (float64): [2., 8.]
  std::vector<double> out(2, 7.0);
  f("add").reduce(a, {.axes = {1}, .where = mask(tft, {3})}, ufjit::out(out));
  EXPECT_EQ(out, (std::vector<double>{2.0, 8.0}));
  // Empty: np.add.reduce(np.zeros((0, 3)), axis=0, where=[True, False, True]) == [0., 0., 0.]
  std::vector<double> none;
  EXPECT_EQ(f("add").reduce(ufjit::view(none.data(), {0, 3}), {.where = mask(tft, {3})}).to_vector<double>(),
            (std::vector<double>{0, 0, 0}));
  // 0-d: np.add.reduce(np.array(5), where=False, initial=3) == 3; without initial 0;
  // np.multiply.reduce(np.array([3]), where=False) == 1
  int64_t five = 5;
  std::vector<uint8_t> no = {0};
  EXPECT_EQ(f("add").reduce(ufjit::view(&five, {}), {.initial = 3, .where = mask(no, {})}).to_vector<int64_t>(),
            std::vector<int64_t>{3});
  EXPECT_EQ(f("add").reduce(ufjit::view(&five, {}), {.where = mask(no, {})}).to_vector<int64_t>(),
            std::vector<int64_t>{0});
  EXPECT_EQ(f("multiply").reduce(std::vector<int64_t>{3}, {.where = mask(no, {1})}).to_vector<int64_t>(),
            std::vector<int64_t>{1});
}

TEST_F(MethodOptions, WhereIsRefusedAsNumPyRefusesIt) {
  const ufjit::ArrayView a = ufjit::view(kArange6.data(), {2, 3});
  std::vector<uint8_t> tft = {1, 0, 1};
  try {
    f("maximum").reduce(a, {.axes = {1}, .where = mask(tft, {3})});
    FAIL() << "maximum reduced with where= and no initial";
  } catch (const ufjit::InputError &e) {
    EXPECT_NE(std::string(e.what()).find("reduction operation 'maximum' does not have an identity, so to use a where "
                                         "mask one has to specify 'initial'"),
              std::string::npos)
        << e.what();
  }
  std::vector<uint8_t> tf = {1, 0};
  EXPECT_THROW(f("add").reduce(a, {.axes = {1}, .where = mask(tf, {2})}), ufjit::ShapeError);
  const std::vector<int64_t> ints = {1, 0, 1};
  try {
    f("add").reduce(a, {.axes = {1}, .where = ufjit::view(ints)});
    FAIL() << "an int64 where= was taken";
  } catch (const ufjit::DispatchError &e) {
    EXPECT_NE(std::string(e.what()).find("to dtype('bool') according to the rule 'safe'"), std::string::npos)
        << e.what();
  }
}

TEST_F(MethodOptions, WhereOnEveryAxisOfA3dArrayAndALongRow) {
  const Shape shape{3, 50, 1100};
  std::vector<int64_t> a(3 * 50 * 1100);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>((i * 7) % 13) - 6;
  std::vector<uint8_t> keep(50 * 1100);  // broadcast over axis 0
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i * 5) % 7 < 4 ? 1 : 0;
  const ufjit::ArrayView v = ufjit::view(a.data(), shape);
  for (int axis = 0; axis < 3; ++axis) {
    Shape out_shape = shape;
    out_shape.erase(out_shape.begin() + axis);
    std::vector<int64_t> want(static_cast<std::size_t>(out_shape[0] * out_shape[1]), 100);
    ufjit::testing::for_each_index(shape, [&](const std::vector<int64_t> &i) {
      if (keep[static_cast<std::size_t>(i[1] * 1100 + i[2])] == 0) return;
      std::vector<int64_t> o = i;
      o.erase(o.begin() + axis);
      want[static_cast<std::size_t>(o[0] * out_shape[1] + o[1])] += a[static_cast<std::size_t>((i[0] * 50 + i[1]) * 1100 + i[2])];
    });
    Array r = f("add").reduce(v, {.axes = {axis}, .initial = 100, .where = mask(keep, {50, 1100})});
    EXPECT_EQ(r.shape(), out_shape) << "axis " << axis;
    EXPECT_EQ(r.to_vector<int64_t>(), want) << "axis " << axis;
  }
  for (int64_t n : {1, 255, 256, 257, (1 << 20) + 1}) {
    std::vector<double> row(static_cast<std::size_t>(n));
    std::vector<uint8_t> odd(static_cast<std::size_t>(n));
    double want = 0;
    for (int64_t i = 0; i < n; ++i) {
      row[static_cast<std::size_t>(i)] = static_cast<double>(i % 17);
      odd[static_cast<std::size_t>(i)] = i % 2;
      if (i % 2 == 1) want += static_cast<double>(i % 17);
    }
    EXPECT_EQ(f("add").reduce(row, {.where = mask(odd, {n})}).to_vector<double>(), std::vector<double>{want})
        << "n = " << n;
  }
  // Long stretches with nothing taken (whole chunks of a long row on the GPU):
  // only elements 5, 700000 and the last of 2^21 + 3.
  const int64_t n = (1 << 21) + 3;
  std::vector<int64_t> row(static_cast<std::size_t>(n), 1000);
  std::vector<uint8_t> few(static_cast<std::size_t>(n), 0);
  for (int64_t k : {int64_t{5}, int64_t{700000}, n - 1}) {
    row[static_cast<std::size_t>(k)] = k % 1000;
    few[static_cast<std::size_t>(k)] = 1;
  }
  EXPECT_EQ(f("maximum").reduce(row, {.initial = -1, .where = mask(few, {n})}).to_vector<int64_t>(),
            std::vector<int64_t>{(n - 1) % 1000});
  EXPECT_EQ(f("add").reduce(row, {.where = mask(few, {n})}).to_vector<int64_t>(),
            std::vector<int64_t>{5 + 0 + (n - 1) % 1000});
  std::fill(few.begin(), few.end(), 0);
  EXPECT_EQ(f("maximum").reduce(row, {.initial = -1, .where = mask(few, {n})}).to_vector<int64_t>(),
            std::vector<int64_t>{-1});
}

}  // namespace
