// Generalized ufunc bodies end to end on the CPU, without the runtime: source
// -> typed IR (ir::compile_to_ir or ir::type_gufunc) -> lowering -> JIT, the
// core function called with array views as the kernels pass them ({data,
// shape, byte strides}). Expected values are worked out by hand or by a
// plain C++ loop beside each case.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen_lower_jit.h"
#include "codegen_typed_source.h"
#include "typer/Typer.h"

namespace ufjit::codegen::testing {
namespace {

struct View1 {
  void *data;
  int64_t shape[1];
  int64_t strides[1];
};

struct View2 {
  void *data;
  int64_t shape[2];
  int64_t strides[2];
};

template <typename T>
View1 view(std::vector<T> &v) {
  return View1{v.data(), {static_cast<int64_t>(v.size())}, {static_cast<int64_t>(sizeof(T))}};
}

template <typename T>
View2 matrix(std::vector<T> &v, int64_t rows, int64_t cols) {
  return View2{v.data(), {rows, cols}, {cols * static_cast<int64_t>(sizeof(T)), static_cast<int64_t>(sizeof(T))}};
}

TEST(LowerGufunc, MatmulFromALayoutOnlyDecoratorTypedForFloat32) {
  const char *source = R"SRC(
from numba import guvectorize
@guvectorize('(m,n),(n,p)->(m,p)')
def matmul(a, b, out):
    m, n = a.shape
    p = b.shape[1]
    for i in range(m):
        for j in range(p):
            acc = 0
            for k in range(n):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc
)SRC";
  auto file = std::make_shared<const SourceFile>("<test>", source);
  DiagnosticEngine diags;
  auto f32 = ir::type_gufunc(file, "matmul", {DType::Float32, DType::Float32, DType::Float32}, diags);
  ASSERT_TRUE(f32) << diags.render_all();
  Jit jit(f32->module);
  std::vector<float> a = {1, 2, 3, 4, 5, 6};           // 2x3
  std::vector<float> b = {7, 8, 9, 10, 11, 12};        // 3x2
  std::vector<float> out(4, -1.0f);
  jit.run(matrix(a, 2, 3), matrix(b, 3, 2), matrix(out, 2, 2));
  std::vector<float> expected(4, 0.0f);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) expected[i * 2 + j] += a[i * 3 + k] * b[k * 2 + j];
    }
  }
  EXPECT_EQ(out, expected);  // {58, 64, 139, 154}
}

TEST(LowerGufunc, NegativeIndicesSizeNdimAndLen) {
  const char *source = R"SRC(
@guvectorize(["void(int64[:, :], int64[:])"], "(m,n)->(k)")
def f(a, out):
    out[0] = a[-1, -1]
    out[1] = a[-2, 0]
    out[2] = a.size
    out[3] = a.ndim
    out[4] = len(a)
    out[-1] = a.shape[-1]
)SRC";
  Jit jit(typed(source));
  std::vector<int64_t> a = {1, 2, 3, 4, 5, 6};  // 3x2
  std::vector<int64_t> out(6, -7);
  jit.run(matrix(a, 3, 2), view(out));
  EXPECT_EQ(out, (std::vector<int64_t>{6, 3, 6, 2, 3, 2}));
}

TEST(LowerGufunc, SlicesAreViewsWithPythonBounds) {
  // Each output is a sum over a slice of a = [0, 1, ..., 9], as Python computes it.
  const char *source = R"SRC(
@guvectorize(["void(float64[:], float64[:])"], "(n)->(k)")
def f(a, out):
    out[:] = 0
    for x in a[2:5]:
        out[0] += x
    for x in a[-3:]:
        out[1] += x
    for x in a[::-3]:
        out[2] += x * 10 ** len(a[::-3])
    for x in a[7:2:-2]:
        out[3] += x
    for x in a[5:100]:
        out[4] += x
    for x in a[8:3]:
        out[5] += 1
    v = a[1:-1]
    out[6] = v[0] + v[-1] + len(v)
    out[7] = a[::2][1:][1]
)SRC";
  Jit jit(typed(source));
  std::vector<double> a(10);
  for (int i = 0; i < 10; ++i) a[static_cast<std::size_t>(i)] = i;
  std::vector<double> out(8, -1.0);
  jit.run(view(a), view(out));
  // a[2:5] = 2,3,4; a[-3:] = 7,8,9; a[::-3] = 9,6,3,0 (4 items, times 10**4);
  // a[7:2:-2] = 7,5,3; a[5:100] = 5..9; a[8:3] is empty; a[1:-1] = 1..8 (8 items);
  // a[::2][1:][1] = [0,2,4,6,8][1:][1] = 4.
  EXPECT_EQ(out, (std::vector<double>{9, 24, 18 * 1e4, 15, 35, 0, 1 + 8 + 8, 4}));
}

TEST(LowerGufunc, SlicesWithOnlyAStepHoldCeilOfLengthOverStepElements) {
  // Python's lengths for a = [0, 1, ..., 9]; a step alone (`a[::k]`) once
  // kept all n elements, reading and writing past the array.
  const char *source = R"SRC(
@guvectorize(["void(float64[:], float64[:])"], "(n)->(k)")
def f(a, out):
    out[:] = 0
    out[0] = len(a[::2])
    for x in a[::2]:
        out[1] += x
    out[2] = len(a[::7]) * 10 + len(a[::100])
    out[3] = len(a[0::3])
    out[4] = len(a[::2][::2])
    for x in a[::2][::2]:
        out[5] += x
    out[6] = len(a[::2][1:])
    for x in a[::-1][::3]:
        out[7] += x
    out[8] = len(a[::9223372036854775807]) * 100 + len(a[::-9223372036854775807]) * 10 + len(a[::-9223372036854775808])
    out[9] = a[::-9223372036854775807][0]
)SRC";
  Jit jit(typed(source));
  std::vector<double> a(10);
  for (int i = 0; i < 10; ++i) a[static_cast<std::size_t>(i)] = i;
  std::vector<double> out(10, -1.0);
  jit.run(view(a), view(out));
  // a[::2] = 0,2,4,6,8; a[::7] = 0,7; a[::100] = 0; a[0::3] = 0,3,6,9;
  // a[::2][::2] = 0,4,8; a[::2][1:] = 2,4,6,8; a[::-1][::3] = 9,6,3,0; a step
  // of magnitude 2**63 - 1 or 2**63 takes the first element alone.
  EXPECT_EQ(out, (std::vector<double>{5, 20, 21, 4, 3, 12, 4, 18, 111, 9}));
}

TEST(LowerGufunc, AStepOnlySliceOfAnOutputWritesItsOwnElementsOnly) {
  const char *source = R"SRC(
@guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
def f(a, out):
    out[:] = 0.0
    out[::4] = 5.0
    out[::1000000] = 7.0
)SRC";
  Jit jit(typed(source));
  std::vector<double> a(6, 1.0);
  std::vector<double> out(9, -1.0);  // the kernel sees the first 6; the rest must stay -1
  View1 first_six = view(out);
  first_six.shape[0] = 6;
  jit.run(view(a), first_six);
  EXPECT_EQ(out, (std::vector<double>{7, 0, 0, 0, 5, 0, -1, -1, -1}));
}

TEST(LowerGufunc, TwoDimensionalViewsMultiplyStridesAndMoveTheStart) {
  const char *source = R"SRC(
@guvectorize(["void(int64[:, :], int64[:])"], "(m,n)->(k)")
def f(a, out):
    v = a[::-1, 1::2]
    k = 0
    for row in v:
        for x in row:
            out[k] = x
            k += 1
    out[k] = v.shape[0] * 100 + v.shape[1]
    out[k + 1] = a[:, -1][::-1][0]
)SRC";
  Jit jit(typed(source));
  std::vector<int64_t> a(12);
  for (int i = 0; i < 12; ++i) a[static_cast<std::size_t>(i)] = i;  // 3x4: rows 0..3, 4..7, 8..11
  std::vector<int64_t> out(8, -1);
  jit.run(matrix(a, 3, 4), view(out));
  // a[::-1, 1::2] = [[9, 11], [5, 7], [1, 3]]; shape (3, 2); a[:, -1][::-1][0] = 11.
  EXPECT_EQ(out, (std::vector<int64_t>{9, 11, 5, 7, 1, 3, 302, 11}));
}

TEST(LowerGufunc, FillsAndRowWritesThroughViewsOfOutputs) {
  const char *source = R"SRC(
@guvectorize(["void(int32[:, :], int32, int32[:, :])"], "(m,n),()->(m,n)")
def f(a, s, out):
    out[:] = s
    out[1, :] = -1
    out[2, 1:] = a[2, 0]
    row = out[0]
    row[-1] = 100
    for r in out[3:]:
        r[0] = 7
)SRC";
  Jit jit(typed(source));
  std::vector<int32_t> a = {0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0};  // 4x3
  std::vector<int32_t> out(12, 0);
  jit.run(matrix(a, 4, 3), int32_t{9}, matrix(out, 4, 3));
  EXPECT_EQ(out, (std::vector<int32_t>{9, 9, 100, -1, -1, -1, 9, 5, 5, 7, 9, 9}));
}

TEST(LowerGufunc, ZeroDimensionalCoresReadScalarsAndWriteWithEmptyTuple) {
  const char *source = R"SRC(
@guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->()")
def f(a, scale, out):
    acc = 0.0
    for x in a:
        acc += x
    out[()] = acc * scale
)SRC";
  Jit jit(typed(source));
  std::vector<double> a = {1.5, 2.5, 3.0};
  std::vector<double> out(1, 0.0);
  jit.run(view(a), 2.0, view(out));
  EXPECT_EQ(out[0], 14.0);
}

TEST(LowerGufunc, StridedAndReversedViewsFromTheCaller) {
  const char *source = R"SRC(
@guvectorize(["void(int64[:], int64[:])"], "(n)->(n)")
def f(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 10 + a[-1]
)SRC";
  Jit jit(typed(source));
  std::vector<int64_t> data = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> out(3, 0);
  // a = data[::-2] = 6, 4, 2 (a pointer to the last element, a negative stride)
  View1 reversed{&data[5], {3}, {-2 * static_cast<int64_t>(sizeof(int64_t))}};
  jit.run(reversed, view(out));
  EXPECT_EQ(out, (std::vector<int64_t>{62, 42, 22}));
}

TEST(LowerGufunc, ViewsPassedToHelpersSeveralOutputsAndAnEarlyReturn) {
  const char *source = R"SRC(
from numba import guvectorize, njit

@njit
def total(v):
    s = 0.0
    for x in v:
        s += x
    return s

@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n)->(n),()")
def f(a, out, t):
    if len(a) < 2:
        t[0] = -1.0
        return
    out[:] = a[0]
    t[0] = total(a[1:])
)SRC";
  Jit jit(typed(source));
  std::vector<double> a = {2.0, 3.0, 4.5};
  std::vector<double> out(3, 0.0);
  std::vector<double> t(1, 0.0);
  jit.run(view(a), view(out), view(t));
  EXPECT_EQ(out, (std::vector<double>{2.0, 2.0, 2.0}));
  EXPECT_EQ(t[0], 7.5);
  std::vector<double> one = {5.0};
  std::vector<double> untouched(1, 9.0);
  jit.run(view(one), view(untouched), view(t));
  EXPECT_EQ(untouched[0], 9.0);
  EXPECT_EQ(t[0], -1.0);
}

}  // namespace
}  // namespace ufjit::codegen::testing
