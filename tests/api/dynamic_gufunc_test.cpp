// Layout-only @guvectorize and is_dynamic=True (Numba's dynamic gufunc):
// compiled for the operand dtypes at the first call with them, through the
// same dispatch and caches as any signature; outputs not given take the
// inputs' common type. Also writable_args. Runs on the Runtime's default
// target (the GPU on the GPU host with UFJIT_TARGET=cuda); expected values
// come from loops written here.
#include <gtest/gtest.h>
#include <ufjit/ufjit.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace {

using ufjit::Array;
using ufjit::DType;
using Shape = std::vector<int64_t>;

constexpr const char *kSource = R"SRC(from numba import guvectorize

@guvectorize('(m,n),(n,p)->(m,p)')
def matmul(a, b, out):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = a[i, 0] * b[0, j]
            for k in range(1, a.shape[1]):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc

@guvectorize('(n),()->(n)')
def scale(a, s, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * s

@guvectorize(["void(float64[:], float64[:])"], '(n)->()', is_dynamic=True)
def total(a, out):
    acc = a[0]
    for i in range(1, a.shape[0]):
        acc += a[i]
    out[0] = acc

@guvectorize('(n)->()')
def lowbit(a, out):
    out[0] = a[0] & 1

@guvectorize('(n)->(n)', writable_args=(0,))
def bump(a, out):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1
        out[i] = a[i]

@guvectorize(["void(float64[:], float64[:])"], '(n)->(n)', writable_args=('a',))
def bump_fixed(a, out):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1
        out[i] = a[i]
)SRC";

class DynamicGufuncTest : public ::testing::Test {
 protected:
  void SetUp() override { set_ = rt_.load(kSource, "dyn.py"); }
  ufjit::Runtime rt_;
  ufjit::UfuncSet set_;
};

/// (m, n) @ (n, p), C order, by loops.
template <typename T, typename R = T>
std::vector<R> reference_matmul(const std::vector<T> &a, const std::vector<T> &b, int64_t m, int64_t n,
                                int64_t p) {
  std::vector<R> out;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      R acc = 0;
      for (int64_t k = 0; k < n; ++k) {
        acc += static_cast<R>(a[static_cast<std::size_t>(i * n + k)]) *
               static_cast<R>(b[static_cast<std::size_t>(k * p + j)]);
      }
      out.push_back(acc);
    }
  }
  return out;
}

TEST_F(DynamicGufuncTest, LayoutOnlyMatmulCompilesPerInputDtypes) {
  ufjit::Ufunc matmul = set_["matmul"];
  EXPECT_TRUE(matmul.is_generalized());
  EXPECT_EQ(matmul.layout(), "(m,n),(n,p)->(m,p)");
  EXPECT_EQ(matmul.nout(), 1);
  EXPECT_TRUE(matmul.signatures().empty());
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0.5f, 1, 1, -1};  // (2,3) @ (3,2)
  Array r = matmul(ufjit::view(a.data(), {2, 3}), ufjit::view(b.data(), {3, 2}));
  EXPECT_EQ(r.view().shape, (Shape{2, 2}));
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(rt_.to_host(r.view()).to_vector<float>(), (reference_matmul<float>(a, b, 2, 3, 2)));
  EXPECT_EQ(matmul.signatures(),
            std::vector<std::string>{"void(float32[:, :], float32[:, :], float32[:, :])"});
  // The same dtypes again reuse the signature; int64 adds one.
  (void)matmul(ufjit::view(b.data(), {3, 2}), ufjit::view(a.data(), {2, 3}));
  EXPECT_EQ(matmul.signatures().size(), 1u);
  std::vector<int64_t> ia = {1, -2, 3, 4, 5, 6, 7, 8},
                       ib = {2, 1, 0, -1, 3, 3, 1, 1};  // batch of 2: (2,2,2) @ (2,2)
  Array ri = matmul(ufjit::view(ia.data(), {2, 2, 2}), ufjit::view(ib.data(), {2, 2}));
  EXPECT_EQ(ri.dtype(), DType::Int64);
  EXPECT_EQ(ri.view().shape, (Shape{2, 2, 2}));
  std::vector<int64_t> expected = reference_matmul<int64_t>({1, -2, 3, 4}, {2, 1, 0, -1}, 2, 2, 2);
  const std::vector<int64_t> second = reference_matmul<int64_t>({5, 6, 7, 8}, {2, 1, 0, -1}, 2, 2, 2);
  expected.insert(expected.end(), second.begin(), second.end());
  EXPECT_EQ(rt_.to_host(ri.view()).to_vector<int64_t>(), expected);
  EXPECT_EQ(matmul.signatures().size(), 2u);
}

TEST_F(DynamicGufuncTest, OutputsTakeTheInputsCommonTypeOrOutsDtype) {
  ufjit::Ufunc matmul = set_["matmul"];
  // float32 @ int32: NumPy's result_type is float64.
  std::vector<float> a = {1.5f, 2, -3, 4};
  std::vector<int32_t> b = {2, 1, 1, 3};
  Array r = matmul(ufjit::view(a.data(), {2, 2}), ufjit::view(b.data(), {2, 2}));
  EXPECT_EQ(r.dtype(), DType::Float64);
  EXPECT_EQ(rt_.to_host(r.view()).to_vector<double>(), (std::vector<double>{5, 7.5, -2, 9}));
  EXPECT_EQ(matmul.signatures(), std::vector<std::string>{"void(float32[:, :], int32[:, :], float64[:, :])"});
  // out(...) gives the output's dtype: a float32 result from float32 inputs into a float64 out.
  std::vector<float> b32 = {2, 1, 1, 3};
  std::vector<double> out(4, -1);
  (void)matmul.call_all({ufjit::view(a.data(), {2, 2}), ufjit::view(b32.data(), {2, 2}),
                         ufjit::out(ufjit::view(out.data(), {2, 2}))});
  EXPECT_EQ(out, (std::vector<double>{5, 7.5, -2, 9}));
  EXPECT_EQ(matmul.signatures().back(), "void(float32[:, :], float32[:, :], float64[:, :])");
}

TEST_F(DynamicGufuncTest, ScalarCoresAreScalarParametersAndWeakScalarsFollowNep50) {
  ufjit::Ufunc scale = set_["scale"];
  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  Array r = scale(ufjit::view(a.data(), {2, 3}), 2.5);  // weak 2.5 beside float32: float32
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(r.view().shape, (Shape{2, 3}));
  EXPECT_EQ(rt_.to_host(r.view()).to_vector<float>(), (std::vector<float>{2.5f, 5, 7.5f, 10, 12.5f, 15}));
  EXPECT_EQ(scale.signatures(), std::vector<std::string>{"void(float32[:], float32, float32[:])"});
  // Per-row factors broadcast over the outer dim: (2,3) and (2,) -> (2,3).
  std::vector<int16_t> rows = {1, -2};
  std::vector<int16_t> m = {1, 2, 3, 4, 5, 6};
  Array ri = scale(ufjit::view(m.data(), {2, 3}), ufjit::view(rows.data(), {2}));
  EXPECT_EQ(ri.dtype(), DType::Int16);
  EXPECT_EQ(rt_.to_host(ri.view()).to_vector<int16_t>(), (std::vector<int16_t>{1, 2, 3, -8, -10, -12}));
}

TEST_F(DynamicGufuncTest, IsDynamicKeepsItsSignaturesAndAddsOthers) {
  ufjit::Ufunc total = set_["total"];
  EXPECT_EQ(total.signatures(), std::vector<std::string>{"void(float64[:], float64[:])"});
  std::vector<double> d = {0.5, 1.5, 2};
  EXPECT_EQ(rt_.to_host(total(d).view()).to_vector<double>(), std::vector<double>{4});
  EXPECT_EQ(total.signatures().size(), 1u);
  std::vector<int32_t> i = {1, 2, 3, 4, 5, 6};
  Array r = total(ufjit::view(i.data(), {3, 2}));
  EXPECT_EQ(r.dtype(), DType::Int32);
  EXPECT_EQ(rt_.to_host(r.view()).to_vector<int32_t>(), (std::vector<int32_t>{3, 7, 11}));
  EXPECT_EQ(total.signatures(),
            (std::vector<std::string>{"void(float64[:], float64[:])", "void(int32[:], int32[:])"}));
}

TEST_F(DynamicGufuncTest, DtypesTheBodyDoesNotTypeAreLocatedCompileErrorsAtTheCall) {
  ufjit::Ufunc lowbit = set_["lowbit"];
  std::vector<int64_t> i = {5, 2, 7, 8};
  EXPECT_EQ(rt_.to_host(lowbit(ufjit::view(i.data(), {2, 2})).view()).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1}));
  try {
    (void)lowbit(std::vector<double>{1.5, 2});
    FAIL() << "no CompileError";
  } catch (const ufjit::CompileError &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("dyn.py:"), std::string::npos) << m;
  }
  EXPECT_EQ(lowbit.signatures(), std::vector<std::string>{"void(int64[:], int64[:])"});
  // A wrong operand count is a DispatchError before anything is typed.
  std::vector<float> a = {1, 2, 3, 4};
  EXPECT_THROW((void)set_["matmul"](ufjit::view(a.data(), {2, 2})), ufjit::DispatchError);
  EXPECT_TRUE(set_["matmul"].signatures().empty());
}

TEST_F(DynamicGufuncTest, WritableArgsInputsAreWrittenInTheCallersArray) {
  ufjit::Ufunc bump = set_["bump"];
  std::vector<double> a = {0, 1, 2, 3, 4, 5};
  Array r = bump(ufjit::view(a.data(), {2, 3}));
  EXPECT_EQ(a, (std::vector<double>{1, 2, 3, 4, 5, 6}));  // a host input written on either target
  EXPECT_EQ(rt_.to_host(r.view()).to_vector<double>(), a);
  // A writable input must have the signature's dtype: a cast would write a copy.
  std::vector<float> f = {1, 2};
  EXPECT_THROW((void)set_["bump_fixed"](f), ufjit::DispatchError);
  EXPECT_EQ(f, (std::vector<float>{1, 2}));
  std::vector<double> ok = {1, 2};
  (void)set_["bump_fixed"](ok);
  EXPECT_EQ(ok, (std::vector<double>{2, 3}));
}

TEST_F(DynamicGufuncTest, WritableInputOverlappingAnOutputIsNotReadThroughACopy) {
  // CPU target: the body's writes to `a` are seen by its later reads and by
  // `out`, which is `a` shifted by one element (one buffer). Element by
  // element: b[i] += 1, then b[i + 1] = b[i].
  ufjit::Ufunc bump = set_["bump"];
  std::vector<int64_t> b = {0, 1, 2, 3, 4};
  std::vector<int64_t> expected = b;
  for (std::size_t i = 0; i < 4; ++i) {
    expected[i] += 1;
    expected[i + 1] = expected[i];
  }
  (void)bump.call_all_on(ufjit::TargetKind::Cpu,
                         {ufjit::view(b.data(), {4}), ufjit::out(ufjit::view(b.data() + 1, {4}))});
  EXPECT_EQ(b, expected);
  EXPECT_EQ(b, (std::vector<int64_t>{1, 2, 3, 4, 4}));
}

TEST_F(DynamicGufuncTest, ManyThreadsAddEachSignatureOnce) {
  ufjit::Ufunc scale = set_["scale"];
  std::vector<std::thread> threads;
  std::vector<int> failures(9, 0);
  for (int t = 0; t < 9; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 4; ++k) {
        if (t % 3 == 0) {
          failures[t] += rt_.to_host(scale(std::vector<int32_t>{2, 4}, 3).view()).to_vector<int32_t>() !=
                         std::vector<int32_t>{6, 12};
        } else if (t % 3 == 1) {
          failures[t] += rt_.to_host(scale(std::vector<float>{2, 4}, 0.5).view()).to_vector<float>() !=
                         std::vector<float>{1, 2};
        } else {
          failures[t] += rt_.to_host(scale(std::vector<double>{2, 4}, ufjit::Typed<double>{-1}).view())
                             .to_vector<double>() != std::vector<double>{-2, -4};
        }
      }
    });
  }
  for (std::thread &th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(9, 0));
  std::vector<std::string> sigs = scale.signatures();
  std::sort(sigs.begin(), sigs.end());
  EXPECT_EQ(sigs, (std::vector<std::string>{"void(float32[:], float32, float32[:])",
                                            "void(float64[:], float64, float64[:])",
                                            "void(int32[:], int32, int32[:])"}));
}

}  // namespace
