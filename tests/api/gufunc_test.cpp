// Generalized ufuncs (@guvectorize) through the C++ API, on the default
// target (UFJIT_TARGET=cuda runs this suite on the GPU, host operands then
// staged). Expected values come from plain loops over the operands written
// here (NumPy's matmul/einsum definitions), never from the other target.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include <ufjit/ufjit.h>

#include "call_test_util.h"

namespace {

using ufjit::Array;
using ufjit::ArrayView;
using ufjit::DType;
using Shape = std::vector<int64_t>;

constexpr const char *kMatmul = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])",
              "void(float32[:,:], float32[:,:], float32[:,:])"], "(m,n),(n,p)->(m,p)")
def matmul(a, b, out):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc
)src";

// LANGUAGE.md section 8's example: the 0-d core output is a 1-element array.
constexpr const char *kDot = R"src(
from numba import guvectorize

@guvectorize(["void(float32[:], float32[:], float32[:])",
              "void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, out):
    acc = 0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc
)src";

constexpr const char *kMinMax = R"src(
from numba import guvectorize

@guvectorize(["void(int64[:], int64[:], int64[:])"], "(n)->(),()")
def minmax(a, lo, hi):
    lo[0] = a[0]
    hi[0] = a[0]
    for i in range(1, a.shape[0]):
        if a[i] < lo[0]:
            lo[0] = a[i]
        if a[i] > hi[0]:
            hi[0] = a[i]
)src";

constexpr const char *kScale = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")
def scale(a, s, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * s
)src";

class Gufunc : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }
  static std::unique_ptr<ufjit::Runtime> rt_;
};
std::unique_ptr<ufjit::Runtime> Gufunc::rt_;

std::vector<double> ramp(std::size_t n, double scale, double offset) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<double>(i % 17) * scale + offset;
  }
  return v;
}

/// C-order strides of `shape` for doubles.
ArrayView view_of(std::vector<double> &v, Shape shape) { return ufjit::view(v.data(), std::move(shape)); }

/// out[..., i, j] = sum_k a[..., i, k] b[..., k, j] with NumPy broadcasting
/// of the leading dims of a (A dims) and b (B dims) to `batch`.
std::vector<double> reference_matmul(const std::vector<double> &a, const Shape &as, const std::vector<double> &b,
                                     const Shape &bs, const Shape &batch) {
  const int64_t m = as[as.size() - 2], n = as.back(), p = bs.back();
  auto offset = [&](const Shape &shape, const std::vector<int64_t> &index) {
    // index is over `batch`; shape's batch dims align on the right.
    int64_t off = 0, stride = 1;
    const std::size_t nb = shape.size() - 2;
    std::vector<int64_t> strides(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= shape[d];
    }
    for (std::size_t d = 0; d < nb; ++d) {
      const int64_t i = index[index.size() - nb + d];
      off += (shape[d] == 1 ? 0 : i) * strides[d];
    }
    return off;
  };
  std::vector<double> out;
  ufjit::testing::for_each_index(batch, [&](const std::vector<int64_t> &index) {
    const int64_t ao = offset(as, index), bo = offset(bs, index);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < n; ++k) {
          acc += a[static_cast<std::size_t>(ao + i * n + k)] * b[static_cast<std::size_t>(bo + k * p + j)];
        }
        out.push_back(acc);
      }
    }
  });
  return out;
}

TEST_F(Gufunc, MatmulBroadcastsOuterDimsAsNumPy) {
  ufjit::Ufunc matmul = rt_->vectorize(kMatmul);
  EXPECT_TRUE(matmul.is_generalized());
  EXPECT_EQ(matmul.layout(), "(m,n),(n,p)->(m,p)");
  const Shape as{2, 1, 3, 4}, bs{5, 4, 2};
  std::vector<double> a = ramp(2 * 3 * 4, 0.5, -1.0), b = ramp(5 * 4 * 2, 0.25, 0.5);
  Array r = matmul(view_of(a, as), view_of(b, bs));
  ASSERT_EQ(r.view().shape, (Shape{2, 5, 3, 2}));
  EXPECT_EQ(r.view().dtype, DType::Float64);
  const std::vector<double> expected = reference_matmul(a, as, b, bs, {2, 5});
  EXPECT_EQ(rt_->to_host(r.view()).to_vector<double>(), expected);
}

TEST_F(Gufunc, MatmulDispatchesOnInputDtypes) {
  ufjit::Ufunc matmul = rt_->vectorize(kMatmul);
  std::vector<float> a{1, 2, 3, 4, 5, 6}, b{1, 0, 0, 1, 1, 1};  // (2,3) @ (3,2)
  Array r = matmul(ufjit::view(a.data(), {2, 3}), ufjit::view(b.data(), {3, 2}));
  EXPECT_EQ(r.view().dtype, DType::Float32);
  EXPECT_EQ(rt_->to_host(r.view()).to_vector<float>(), (std::vector<float>{4, 5, 10, 11}));
}

TEST_F(Gufunc, DotGivesZeroDimResultAndOneOuterElement) {
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  Array r = dot(a, b);
  EXPECT_EQ(r.view().shape, Shape{});
  EXPECT_EQ(rt_->to_host(r.view()).to_vector<double>(), std::vector<double>{32});
}

TEST_F(Gufunc, DotOverManyOuterElementsAroundLaunchBoundaries) {
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  for (int64_t rows : {0, 1, 255, 256, 257, 1025, 70001}) {
    const int64_t n = 7;
    std::vector<float> a(static_cast<std::size_t>(rows * n)), b(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 13) - 6.0f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) * 0.5f;
    Array r = dot(ufjit::view(a.data(), {rows, n}), ufjit::view(b.data(), {n}));
    ASSERT_EQ(r.view().shape, Shape{rows}) << rows;
    if (rows == 0) continue;
    std::vector<float> got = rt_->to_host(r.view()).to_vector<float>();
    for (int64_t i = 0; i < rows; ++i) {
      float acc = 0;
      for (int64_t k = 0; k < n; ++k) acc += a[static_cast<std::size_t>(i * n + k)] * b[static_cast<std::size_t>(k)];
      ASSERT_EQ(got[static_cast<std::size_t>(i)], acc) << "rows " << rows << " row " << i;
    }
  }
}

TEST_F(Gufunc, EmptyCoreDimensionRunsTheCoreOnEmptyArrays) {
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  std::vector<double> a, b;
  Array r = dot(ufjit::view(a.data(), {3, 0}), ufjit::view(b.data(), {0}));
  EXPECT_EQ(rt_->to_host(r.view()).to_vector<double>(), (std::vector<double>{0, 0, 0}));
}

TEST_F(Gufunc, SeveralOutputsReturnedOrWrittenToOut) {
  ufjit::Ufunc minmax = rt_->vectorize(kMinMax);
  std::vector<int64_t> a{5, -3, 9, 2, 7, 7, 7, 7, -1, 0, 100, -100};  // (3, 4)
  std::vector<Array> r = minmax.outputs(ufjit::view(a.data(), {3, 4}));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(rt_->to_host(r[0].view()).to_vector<int64_t>(), (std::vector<int64_t>{-3, 7, -100}));
  EXPECT_EQ(rt_->to_host(r[1].view()).to_vector<int64_t>(), (std::vector<int64_t>{9, 7, 100}));
  std::vector<int64_t> lo(3), hi(3);
  EXPECT_TRUE(minmax.outputs(ufjit::view(a.data(), {3, 4}), ufjit::out(lo), ufjit::out(hi)).empty());
  EXPECT_EQ(lo, (std::vector<int64_t>{-3, 7, -100}));
  EXPECT_EQ(hi, (std::vector<int64_t>{9, 7, 100}));
  // call() has one result to give; outputs are all or none.
  EXPECT_THROW(minmax(ufjit::view(a.data(), {3, 4})), ufjit::InputError);
  EXPECT_THROW(minmax(ufjit::view(a.data(), {3, 4}), ufjit::out(lo)), ufjit::DispatchError);
}

TEST_F(Gufunc, ScalarParameterBroadcastsAlongTheLoop) {
  ufjit::Ufunc scale = rt_->vectorize(kScale);
  std::vector<double> a{1, 2, 3, 4, 5, 6};  // (2, 3)
  std::vector<double> s{10, -1};            // (2,) -> one scale per row
  Array r = scale(view_of(a, {2, 3}), view_of(s, {2}));
  EXPECT_EQ(rt_->to_host(r.view()).to_vector<double>(), (std::vector<double>{10, 20, 30, -4, -5, -6}));
  Array r2 = scale(view_of(a, {2, 3}), 0.5);  // a weak scalar
  EXPECT_EQ(rt_->to_host(r2.view()).to_vector<double>(), (std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3}));
  std::vector<int32_t> ints{1, 2, 3};  // int32 casts safely to float64
  Array r3 = scale(ufjit::view(ints.data(), {3}), 2.0);
  EXPECT_EQ(rt_->to_host(r3.view()).to_vector<double>(), (std::vector<double>{2, 4, 6}));
}

TEST_F(Gufunc, NonContiguousInputsAreReadThroughTheirStrides) {
  ufjit::Ufunc matmul = rt_->vectorize(kMatmul);
  // a^T of a (3, 2) C array: a (2, 3) Fortran view; b reversed along rows.
  std::vector<double> at{1, 2, 3, 4, 5, 6};  // at[i][j] = (3,2) C
  ArrayView a = view_of(at, {2, 3});
  a.strides = {8, 16};  // a[i][j] = at[j][i]
  std::vector<double> braw{1, 2, 3, 4, 5, 6};  // (3, 2)
  ArrayView b = view_of(braw, {3, 2});
  b.data = braw.data() + 4;
  b.strides = {-16, 8};  // b[k][j] = braw[2 - k][j]
  Array r = matmul(a, b);
  // a = [[1,3,5],[2,4,6]], b = [[5,6],[3,4],[1,2]]
  EXPECT_EQ(rt_->to_host(r.view()).to_vector<double>(), (std::vector<double>{19, 28, 28, 40}));
}

TEST_F(Gufunc, OutOfAnotherLayoutIsWrittenInPlace) {
  ufjit::Ufunc scale = rt_->vectorize(kScale);
  std::vector<double> a{1, 2, 3, 4};
  std::vector<double> o(8, -7.0);
  ArrayView ov = view_of(o, {4});
  ov.strides = {16};  // every other element
  EXPECT_TRUE(scale(view_of(a, {4}), 3.0, ufjit::out(ov)).empty_handle());
  EXPECT_EQ(o, (std::vector<double>{3, -7, 6, -7, 9, -7, 12, -7}));
  // An input that is the output is read before it is written.
  scale(view_of(a, {4}), 2.0, ufjit::out(view_of(a, {4})));
  EXPECT_EQ(a, (std::vector<double>{2, 4, 6, 8}));
}

TEST_F(Gufunc, MismatchedCoreDimensionIsAShapeErrorNamingIt) {
  ufjit::Ufunc matmul = rt_->vectorize(kMatmul);
  std::vector<double> a(6), b(6);
  try {
    matmul(view_of(a, {2, 3}), view_of(b, {2, 3}));
    FAIL() << "no ShapeError";
  } catch (const ufjit::ShapeError &e) {
    EXPECT_NE(std::string(e.what()).find("core dimension 'n'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(2,3)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(matmul(view_of(a, {6}), view_of(b, {2, 3})), ufjit::ShapeError);  // too few dims
  std::vector<double> c(2 * 2 * 3), d(3 * 3 * 2);
  EXPECT_THROW(matmul(view_of(c, {2, 2, 3}), view_of(d, {3, 3, 2})), ufjit::ShapeError);  // outer (2,) vs (3,)
}

TEST_F(Gufunc, OutWithWrongShapeOrDtypeIsRefusedBeforeWriting) {
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  std::vector<double> a(6, 1.0), b(3, 1.0);
  std::vector<double> wrong(3, -1.0);
  EXPECT_THROW(dot(view_of(a, {2, 3}), view_of(b, {3}), ufjit::out(wrong)), ufjit::ShapeError);
  EXPECT_EQ(wrong, (std::vector<double>{-1, -1, -1}));
  std::vector<float> f(2);
  EXPECT_THROW(dot(view_of(a, {2, 3}), view_of(b, {3}), ufjit::out(f)), ufjit::DispatchError);
}

TEST_F(Gufunc, AxisPicksTheSharedCoreDimensionAsNumPy) {
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  std::vector<double> a{1, 2, 3, 4, 5, 6}, b{1, 1, 10, 10, 100, 100};  // (3, 2): contract over axis 0
  ufjit::CoreAxes axis0;
  axis0.axis = 0;
  std::vector<Array> r = dot.call_all({view_of(a, {3, 2}), view_of(b, {3, 2})}, axis0);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].view().shape, Shape{2});
  EXPECT_EQ(rt_->to_host(r[0].view()).to_vector<double>(), (std::vector<double>{1 + 30 + 500, 2 + 40 + 600}));
  ufjit::CoreAxes last;
  last.axis = -1;  // the default
  EXPECT_EQ(rt_->to_host(dot.call_all({view_of(a, {3, 2}), view_of(b, {3, 2})}, last)[0].view()).to_vector<double>(),
            (std::vector<double>{1 + 2, 30 + 40, 500 + 600}));
}

TEST_F(Gufunc, AxesMoveInputCoresAndPlaceOutputCores) {
  ufjit::Ufunc matmul = rt_->vectorize(kMatmul);
  const int64_t batch = 2, m = 3, n = 4, p = 5;
  std::vector<double> a = ramp(static_cast<std::size_t>(batch * m * n), 0.5, -2.0);  // (batch, m, n)
  std::vector<double> b = ramp(static_cast<std::size_t>(n * p), 0.25, 1.0);         // (n, p)
  const std::vector<double> expected = reference_matmul(a, {batch, m, n}, b, {n, p}, {batch});  // (batch, m, p)
  // a stored as (m, n, batch): its core axes are (0, 1); the output's core goes to axes (0, 1) too.
  std::vector<double> a_mnb(a.size());
  for (int64_t k = 0; k < batch; ++k)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        a_mnb[static_cast<std::size_t>((i * n + j) * batch + k)] = a[static_cast<std::size_t>((k * m + i) * n + j)];
  ufjit::CoreAxes axes;
  axes.axes = {{0, 1}, {-2, -1}, {0, 1}};
  std::vector<Array> r = matmul.call_all({view_of(a_mnb, {m, n, batch}), view_of(b, {n, p})}, axes);
  ASSERT_EQ(r[0].view().shape, (Shape{m, p, batch}));
  std::vector<double> got = rt_->to_host(r[0].view()).to_vector<double>();  // C order of (m, p, batch)
  for (int64_t k = 0; k < batch; ++k)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < p; ++j)
        ASSERT_EQ(got[static_cast<std::size_t>((i * p + j) * batch + k)], expected[static_cast<std::size_t>((k * m + i) * p + j)]);
  ufjit::CoreAxes wrong;
  wrong.axes = {{0}, {-2, -1}, {0, 1}};
  EXPECT_THROW(matmul.call_all({view_of(a_mnb, {m, n, batch}), view_of(b, {n, p})}, wrong), ufjit::InputError);
  wrong.axes = {{0, 0}, {-2, -1}, {0, 1}};
  EXPECT_THROW(matmul.call_all({view_of(a_mnb, {m, n, batch}), view_of(b, {n, p})}, wrong), ufjit::InputError);
  ufjit::CoreAxes axis;
  axis.axis = 0;  // (m,n) has two core dims
  EXPECT_THROW(matmul.call_all({view_of(a_mnb, {m, n, batch}), view_of(b, {n, p})}, axis), ufjit::InputError);
}

}  // namespace

TEST_F(Gufunc, ContiguousLoopDimensionsMergeAndNineThatDoNotAreAShapeErrorThatWritesNothing) {
  // The kernel takes the loop shape as 8 values: a ninth loop dimension was
  // read past them (garbage results) before it was an error. Loop dims that
  // every operand walks contiguously merge into one, so nine of those run.
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  const std::vector<double> b{1, 2, 3};
  for (int loops : {8, 9}) {
    for (bool spread : {false, true}) {
      // a: (2,) * loops + (3,). Spread: each loop dim's stride is 3x the
      // next one's (from 4 elements), so no two of them merge; else C order.
      Shape shape(static_cast<std::size_t>(loops), 2);
      const Shape out_shape = shape;
      shape.push_back(3);
      std::vector<int64_t> elements(static_cast<std::size_t>(loops));
      int64_t step = spread ? 4 : 3;
      for (int d = loops - 1; d >= 0; --d) {
        elements[static_cast<std::size_t>(d)] = step;
        step *= spread ? 3 : 2;
      }
      std::vector<double> a(static_cast<std::size_t>(step));
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 5);
      ufjit::ArrayView a_view = ufjit::view(a.data(), shape);
      for (std::size_t d = 0; d < elements.size(); ++d) a_view.strides[d] = elements[d] * 8;
      const int64_t outer = int64_t{1} << loops;
      std::vector<double> out(static_cast<std::size_t>(outer), -1.0);
      auto call = [&] { dot(a_view, ufjit::view(b.data(), {3}), ufjit::out(ufjit::view(out.data(), out_shape))); };
      if (loops == 9 && spread) {
        EXPECT_THROW(call(), ufjit::ShapeError);
        EXPECT_EQ(out, std::vector<double>(out.size(), -1.0));
        continue;
      }
      call();
      for (int64_t i = 0; i < outer; ++i) {
        int64_t at = 0;
        for (int d = 0; d < loops; ++d) {
          at += ((i >> (loops - 1 - d)) & 1) * elements[static_cast<std::size_t>(d)];
        }
        const std::size_t x = static_cast<std::size_t>(at);
        ASSERT_EQ(out[static_cast<std::size_t>(i)], a[x] + 2 * a[x + 1] + 3 * a[x + 2])
            << loops << " loop dims, spread " << spread << ", outer element " << i;
      }
    }
  }
}

TEST_F(Gufunc, SizeOneLoopDimensionsDoNotCountAgainstTheLimit) {
  // NumPy runs a gufunc on (1,) * 20 + core shapes; only loop dims larger
  // than 1 take one of the kernel's 8 places.
  ufjit::Ufunc dot = rt_->vectorize(kDot);
  Shape a_shape(20, 1);
  a_shape[3] = 2;   // two loop dims of size 2 among eighteen of size 1
  a_shape[17] = 3;
  Shape b_shape(19, 1);
  b_shape[10] = 2;  // broadcast against a's: a third loop dim
  a_shape.push_back(3);
  b_shape.push_back(3);
  std::vector<double> a(2 * 3 * 3), b(2 * 3);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 7) - 2.0;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i) * 0.5;
  Array r = dot(ufjit::view(a.data(), a_shape), ufjit::view(b.data(), b_shape));
  Shape expected_shape(20, 1);
  expected_shape[3] = 2;
  expected_shape[11] = 2;  // b's dim 10 of 19 is dim 11 of the 20-dim loop shape
  expected_shape[17] = 3;
  ASSERT_EQ(r.view().shape, expected_shape);
  const std::vector<double> got = rt_->to_host(r.view()).to_vector<double>();
  ASSERT_EQ(got.size(), 12u);
  std::size_t at = 0;
  for (int64_t i = 0; i < 2; ++i) {      // a's dim 3
    for (int64_t j = 0; j < 2; ++j) {    // b's dim 10
      for (int64_t k = 0; k < 3; ++k) {  // a's dim 17
        const double *x = &a[static_cast<std::size_t>((i * 3 + k) * 3)];
        const double *y = &b[static_cast<std::size_t>(j * 3)];
        ASSERT_EQ(got[at++], x[0] * y[0] + x[1] * y[1] + x[2] * y[2]) << i << " " << j << " " << k;
      }
    }
  }
}
