// Ufunc methods (reduce, accumulate, outer) and identity= through the public
// API, on the Runtime's default target: the CPU here, the GPU on the GPU host
// (the api suite runs there with UFJIT_TARGET=cuda). Expected values are
// NumPy's (literals printed by NumPy 1.24) or plain C++ loops over the same
// data; float data are small integers, so that every summation order gives
// the same exact result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <ufjit/ufjit.h>

#include "call_test_util.h"

namespace {

using ufjit::Array;
using ufjit::DType;
using Shape = std::vector<int64_t>;

constexpr const char *kAdd = R"SRC(
from numba import vectorize

@vectorize(["int64(int64, int64)", "int32(int32, int32)", "float32(float32, float32)",
            "float64(float64, float64)"], identity=0)
def add(a, b):
    return a + b
)SRC";

constexpr const char *kMethods = R"SRC(
from numba import vectorize

@vectorize(["float32(float32, float32)", "int64(int64, int64)"])
def maximum(a, b):
    return a if a > b else b

@vectorize(["int32(int32, int32)", "int64(int64, int64)"], identity=1)
def multiply(a, b):
    return a * b

@vectorize(["int64(int64, int64)"], identity='reorderable')
def add_reorderable(a, b):
    return a + b

@vectorize(["float64(float32, float32)"])
def widening(a, b):
    return a + b

@vectorize(["float64(float64)"])
def unary(a):
    return a
)SRC";

class MethodsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>();
    add_ = rt_->vectorize(kAdd);
    set_ = std::make_unique<ufjit::UfuncSet>(rt_->load(kMethods));
  }
  static void TearDownTestSuite() {
    add_ = ufjit::Ufunc();
    set_.reset();
    rt_.reset();
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static ufjit::Ufunc add_;
  static std::unique_ptr<ufjit::UfuncSet> set_;
};
std::unique_ptr<ufjit::Runtime> MethodsTest::rt_;
ufjit::Ufunc MethodsTest::add_;
std::unique_ptr<ufjit::UfuncSet> MethodsTest::set_;

/// Small integers, some negative: i -> (i * 7) % 13 - 6.
template <typename T>
std::vector<T> data(int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>((i * 7) % 13 - 6);
  return v;
}

/// NumPy's add.reduce of a C-ordered array over `axes`, by loops.
std::vector<int64_t> sum_over(const std::vector<int64_t> &a, const Shape &shape, const std::vector<int> &axes) {
  Shape out_shape;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (std::find(axes.begin(), axes.end(), static_cast<int>(d)) == axes.end()) out_shape.push_back(shape[d]);
  }
  int64_t n = 1;
  for (int64_t d : out_shape) n *= d;
  std::vector<int64_t> out(static_cast<std::size_t>(n), 0);
  int64_t k = 0;
  ufjit::testing::for_each_index(shape, [&](const std::vector<int64_t> &index) {
    int64_t flat = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (std::find(axes.begin(), axes.end(), static_cast<int>(d)) == axes.end()) flat = flat * shape[d] + index[d];
    }
    out[static_cast<std::size_t>(flat)] += a[static_cast<std::size_t>(k++)];
  });
  return out;
}

TEST_F(MethodsTest, IdentityComesFromTheDecorator) {
  EXPECT_EQ(add_.identity(), ufjit::Identity::Zero);
  EXPECT_EQ((*set_)["multiply"].identity(), ufjit::Identity::One);
  EXPECT_EQ((*set_)["maximum"].identity(), ufjit::Identity::None);
  EXPECT_EQ((*set_)["add_reorderable"].identity(), ufjit::Identity::Reorderable);
}

TEST_F(MethodsTest, InvalidIdentityIsALocatedCompileError) {
  const char *source = "from numba import vectorize\n@vectorize(['f8(f8, f8)'], identity=2)\ndef f(a, b):\n    return a\n";
  try {
    rt_->vectorize(source, {}, "bad.ufn");
    FAIL() << "identity=2 compiled";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("bad.ufn:2:37: error: invalid identity value 2"), std::string::npos)
        << e.what();
  }
}

TEST_F(MethodsTest, ReduceAtBlockBoundariesInt64AndFloat32) {
  for (int64_t n : {1, 2, 255, 256, 257, 1023, 1024, 1025, 4097, (1 << 20) + 3}) {
    const std::vector<int64_t> a = data<int64_t>(n);
    int64_t expected = 0;
    for (int64_t v : a) expected += v;
    Array r = add_.reduce(a);
    ASSERT_EQ(r.shape(), Shape{}) << n;
    EXPECT_EQ(r.to_vector<int64_t>()[0], expected) << "n = " << n;
    Array rf = add_.reduce(data<float>(n));
    EXPECT_EQ(rf.to_vector<float>()[0], static_cast<float>(expected)) << "float32, n = " << n;
  }
}

TEST_F(MethodsTest, ReduceEveryAxisOfA3dArray) {
  const Shape shape{3, 50, 1100};
  const std::vector<int64_t> a = data<int64_t>(3 * 50 * 1100);
  const ufjit::ArrayView v = ufjit::view(a.data(), shape);
  for (int axis : {0, 1, 2, -1}) {
    const int positive = axis < 0 ? axis + 3 : axis;
    Array r = add_.reduce(v, {.axes = {axis}});
    Shape want_shape = shape;
    want_shape.erase(want_shape.begin() + positive);
    EXPECT_EQ(r.shape(), want_shape) << "axis " << axis;
    EXPECT_EQ(r.to_vector<int64_t>(), sum_over(a, shape, {positive})) << "axis " << axis;
  }
  Array r02 = add_.reduce(v, {.axes = {0, 2}});
  EXPECT_EQ(r02.to_vector<int64_t>(), sum_over(a, shape, {0, 2}));
  Array kept = add_.reduce(v, {.axes = {2, 0}, .keepdims = true});
  EXPECT_EQ(kept.shape(), (Shape{1, 50, 1}));
  EXPECT_EQ(kept.to_vector<int64_t>(), sum_over(a, shape, {0, 2}));
  Array all = add_.reduce(v, {.all_axes = true});
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_EQ(all.to_vector<int64_t>(), sum_over(a, shape, {0, 1, 2}));
}

TEST_F(MethodsTest, ReduceMatchesNumPyLiterals) {
  // a = np.arange(24).reshape(2, 3, 4) * 3 % 11 - 4
  const std::vector<int64_t> a = {-4, -1, 2, 5, -3, 0, 3, 6, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, 6, -2, 1, 4, -4, -1};
  const ufjit::ArrayView v = ufjit::view(a.data(), {2, 3, 4});
  EXPECT_EQ(add_.reduce(v, {.axes = {0, 2}}).to_vector<int64_t>(), (std::vector<int64_t>{5, 13, -1}));
  EXPECT_EQ(add_.reduce(v, {.all_axes = true}).to_vector<int64_t>(), (std::vector<int64_t>{17}));
  EXPECT_EQ(add_.reduce(v, {.axes = {1}, .initial = 100}).to_vector<int64_t>(),
            (std::vector<int64_t>{91, 100, 109, 107, 100, 109, 107, 94}));
  EXPECT_EQ(add_.reduce(v).to_vector<int64_t>(), (std::vector<int64_t>{-5, 1, 7, 2, -3, 3, 9, 4, -1, 5, 0, -5}));
  EXPECT_EQ(add_.reduce(v, {.axes = {2}}).to_vector<int64_t>(), (std::vector<int64_t>{2, 6, -1, 3, 7, 0}));
  // A strided (transposed, reversed) view reduces like its elements.
  ufjit::ArrayView reversed = v;
  reversed.data = const_cast<int64_t *>(a.data()) + 23;
  reversed.strides = {-96, -32, -8};
  EXPECT_EQ(add_.reduce(reversed, {.axes = {2}}).to_vector<int64_t>(), (std::vector<int64_t>{0, 7, 3, -1, 6, 2}));
}

TEST_F(MethodsTest, ANonReorderableFunctionReducesLeftToRightWithInitialFirstOnTheCpu) {
  if (rt_->target() != ufjit::TargetKind::Cpu) {
    GTEST_SKIP() << "the GPU reduces in a tree, which needs an associative function (docs/guide/cpp.md)";
  }
  ufjit::Ufunc sub = rt_->vectorize(R"SRC(
@vectorize(["int64(int64, int64)", "float64(float64, float64)"])
def sub(a, b):
    return a - b
)SRC");
  // np.subtract.reduce([10., 20., 30.], initial=1) is ((1 - 10) - 20) - 30;
  // f(initial, fold(row)) gave 41.
  const std::vector<double> v = {10, 20, 30};
  EXPECT_EQ(sub.reduce(ufjit::view(v.data(), {3}), {.initial = 1}).to_vector<double>(),
            std::vector<double>{-59.0});
  const std::vector<int64_t> b = {10, 20, 1, 2, 100, 200};
  EXPECT_EQ(sub.reduce(ufjit::view(b.data(), {3, 2}), {.axes = {0}, .initial = 1}).to_vector<int64_t>(),
            (std::vector<int64_t>{-110, -221}));
  // Long rows in one piece: chunks combined with f gave 71418 for 100,000 ones.
  const std::vector<int64_t> ones(1000000, 1);
  EXPECT_EQ(sub.reduce(ufjit::view(ones.data(), {100000})).to_vector<int64_t>(),
            std::vector<int64_t>{-99998});
  EXPECT_EQ(sub.reduce(ufjit::view(ones.data(), {4, 250000}), {.axes = {1}}).to_vector<int64_t>(),
            std::vector<int64_t>(4, -249998));
  EXPECT_EQ(
      sub.reduce(ufjit::view(ones.data(), {4, 250000}), {.axes = {1}, .initial = 5}).to_vector<int64_t>(),
      std::vector<int64_t>(4, 5 - 250000));
}

TEST_F(MethodsTest, ReduceIntoOutAndWithCastInputs) {
  const std::vector<int64_t> a = data<int64_t>(6 * 7);
  std::vector<int64_t> out(7, -1);
  Array none = add_.reduce(ufjit::view(a.data(), {6, 7}), {}, ufjit::out(out));
  EXPECT_TRUE(none.empty_handle());
  EXPECT_EQ(out, sum_over(a, {6, 7}, {0}));
  // int16 data dispatch as a call would: to the first signature they cast to
  // safely, int64(int64, int64); the sum does not wrap at int16.
  std::vector<int16_t> small = {1, 2, 3, 30000, 30000};
  Array r = add_.reduce(small);
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(r.to_vector<int64_t>()[0], 60006);
  std::vector<int32_t> wrong_shape(3);
  EXPECT_THROW(add_.reduce(ufjit::view(a.data(), {6, 7}), {}, ufjit::out(wrong_shape)), ufjit::ShapeError);
  // An out of another dtype is cast into (NumPy): np.add.reduce(a, out=f8).
  std::vector<double> other_dtype(7, -1.0);
  add_.reduce(ufjit::view(a.data(), {6, 7}), {}, ufjit::out(other_dtype));
  const std::vector<int64_t> sums = sum_over(a, {6, 7}, {0});
  EXPECT_EQ(other_dtype, std::vector<double>(sums.begin(), sums.end()));
}

TEST_F(MethodsTest, EmptyReductionsGiveTheIdentityOrInitialOrAnError) {
  std::vector<int64_t> empty;
  EXPECT_EQ(add_.reduce(empty).to_vector<int64_t>(), std::vector<int64_t>{0});
  EXPECT_EQ((*set_)["multiply"].reduce(empty).to_vector<int64_t>(), std::vector<int64_t>{1});
  EXPECT_EQ((*set_)["maximum"].reduce(empty, {.initial = -7}).to_vector<int64_t>(), std::vector<int64_t>{-7});
  try {
    (*set_)["maximum"].reduce(empty);
    FAIL() << "an empty reduction without identity gave a value";
  } catch (const ufjit::ShapeError &e) {
    EXPECT_NE(std::string(e.what()).find("zero-size array to reduction operation 'maximum' which has no identity"),
              std::string::npos)
        << e.what();
  }
  // (0, 3) over axis 0: three empty reductions; over axis 1: no reduction at all.
  std::vector<float> none;
  Array cols = add_.reduce(ufjit::view(none.data(), {0, 3}));
  EXPECT_EQ(cols.shape(), Shape{3});
  EXPECT_EQ(cols.to_vector<float>(), (std::vector<float>{0, 0, 0}));
  Array rows = add_.reduce(ufjit::view(none.data(), {0, 3}), {.axes = {1}});
  EXPECT_EQ(rows.shape(), Shape{0});
}

TEST_F(MethodsTest, ZeroDimensionalArraysReduceToThemselves) {
  // np.add.reduce(np.array(5)) == 5, also with axis=-1 and axis=None; initial=3 gives 8.
  int64_t five = 5;
  const ufjit::ArrayView v = ufjit::view(&five, {});
  EXPECT_EQ(add_.reduce(v).to_vector<int64_t>(), std::vector<int64_t>{5});
  EXPECT_EQ(add_.reduce(v, {.axes = {-1}}).to_vector<int64_t>(), std::vector<int64_t>{5});
  EXPECT_EQ(add_.reduce(v, {.all_axes = true, .initial = 3}).to_vector<int64_t>(), std::vector<int64_t>{8});
  EXPECT_THROW(add_.reduce(v, {.axes = {1}}), ufjit::ShapeError);
  EXPECT_THROW(add_.accumulate(v), ufjit::ShapeError);
}

TEST_F(MethodsTest, ReduceRejectsWhatNumPyRejects) {
  const std::vector<int64_t> a = data<int64_t>(12);
  const ufjit::ArrayView v = ufjit::view(a.data(), {3, 4});
  EXPECT_THROW(add_.reduce(v, {.axes = {2}}), ufjit::ShapeError);
  EXPECT_THROW(add_.reduce(v, {.axes = {0, -2}}), ufjit::ShapeError);  // duplicate
  // identity=None: not reorderable, one axis at most (NumPy).
  EXPECT_THROW((*set_)["maximum"].reduce(v, {.all_axes = true}), ufjit::DispatchError);
  EXPECT_EQ((*set_)["add_reorderable"].reduce(v, {.all_axes = true}).to_vector<int64_t>(),
            sum_over(a, {3, 4}, {0, 1}));
  EXPECT_THROW((*set_)["unary"].reduce(v), ufjit::DispatchError);
  std::vector<float> f(4);
  EXPECT_THROW((*set_)["widening"].reduce(f), ufjit::DispatchError);
  EXPECT_THROW(add_.reduce(3.0), ufjit::InputError);
  EXPECT_THROW(ufjit::Ufunc().reduce(a), ufjit::InputError);
}

TEST_F(MethodsTest, AccumulateMatchesNumPy) {
  // np.maximum.accumulate(m)
  const std::vector<float> m = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
  EXPECT_EQ((*set_)["maximum"].accumulate(m).to_vector<float>(),
            (std::vector<float>{3, 3, 4, 4, 5, 9, 9, 9, 9, 9, 9}));
  // np.add.accumulate(a, axis=1), a as in ReduceMatchesNumPyLiterals
  const std::vector<int64_t> a = {-4, -1, 2, 5, -3, 0, 3, 6, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, 6, -2, 1, 4, -4, -1};
  Array r = add_.accumulate(ufjit::view(a.data(), {2, 3, 4}), {.axis = 1});
  EXPECT_EQ(r.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(r.to_vector<int64_t>(), (std::vector<int64_t>{-4, -1, 2, 5, -7, -1, 5, 11, -9, 0, 9, 7,
                                                          -1, 2, 5, -3, -1, 5, 11, -5, 0, 9, 7, -6}));
}

TEST_F(MethodsTest, AccumulateEveryAxisAndLongLines) {
  const Shape shape{4, 5, 300};
  const std::vector<int64_t> a = data<int64_t>(4 * 5 * 300);
  for (int axis = 0; axis < 3; ++axis) {
    Array r = add_.accumulate(ufjit::view(a.data(), shape), {.axis = axis});
    std::vector<int64_t> want = a;
    const int64_t stride = axis == 0 ? 1500 : axis == 1 ? 300 : 1;
    ufjit::testing::for_each_index(shape, [&](const std::vector<int64_t> &i) {
      if (i[static_cast<std::size_t>(axis)] == 0) return;
      const int64_t k = (i[0] * 5 + i[1]) * 300 + i[2];
      want[static_cast<std::size_t>(k)] += want[static_cast<std::size_t>(k - stride)];
    });
    EXPECT_EQ(r.to_vector<int64_t>(), want) << "axis " << axis;
  }
  for (int64_t n : {1, 257, 100003}) {
    const std::vector<int64_t> line = data<int64_t>(n);
    std::vector<int64_t> want(line.size());
    int64_t acc = 0;
    for (std::size_t i = 0; i < line.size(); ++i) want[i] = acc += line[i];
    EXPECT_EQ(add_.accumulate(line).to_vector<int64_t>(), want) << n;
  }
  std::vector<int64_t> empty;
  EXPECT_EQ(add_.accumulate(empty).shape(), Shape{0});
  std::vector<int64_t> out(5);
  add_.accumulate(std::vector<int64_t>{1, 2, 3, 4, 5}, {}, ufjit::out(out));
  EXPECT_EQ(out, (std::vector<int64_t>{1, 3, 6, 10, 15}));
  EXPECT_THROW(add_.accumulate(empty, {.axis = 1}), ufjit::ShapeError);
}

TEST_F(MethodsTest, OuterMatchesNumPy) {
  // np.multiply.outer(b, c)
  const std::vector<int32_t> b = {1, 2, 3, 4};
  const std::vector<int32_t> c = {1, 10, 100};
  Array r = (*set_)["multiply"].outer(ufjit::view(b.data(), {2, 2}), c);
  EXPECT_EQ(r.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(r.to_vector<int32_t>(), (std::vector<int32_t>{1, 10, 100, 2, 20, 200, 3, 30, 300, 4, 40, 400}));
  std::vector<int32_t> out(12);
  (*set_)["multiply"].outer(ufjit::view(b.data(), {2, 2}), c, ufjit::out(ufjit::view(out.data(), {2, 2, 3})));
  EXPECT_EQ(out, (std::vector<int32_t>{1, 10, 100, 2, 20, 200, 3, 30, 300, 4, 40, 400}));
  EXPECT_THROW((*set_)["unary"].outer(c, c), ufjit::DispatchError);
}

}  // namespace
