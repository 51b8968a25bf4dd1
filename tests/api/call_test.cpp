// Calls through the public API on the CPU target: broadcasting, strides,
// dispatch, `out`, 0-d and empty operands, errors before anything runs, and
// many threads at once.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include <ufjit/ufjit.h>

#include "call_test_util.h"

namespace {

using ufjit::Array;
using ufjit::ArrayView;
using ufjit::DType;
using Shape = std::vector<int64_t>;
using ufjit::testing::for_each_index;

class CallTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
    // a * 100 + b: every output element says which inputs it came from.
    combine_ = rt_->vectorize("def combine(a, b):\n    return a * 100 + b\n",
                              {"float32(float32, float32)", "float64(float64, float64)"});
  }
  static void TearDownTestSuite() {
    combine_ = ufjit::Ufunc();
    rt_.reset();
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static ufjit::Ufunc combine_;
};
std::unique_ptr<ufjit::Runtime> CallTest::rt_;
ufjit::Ufunc CallTest::combine_;

/// A host array of `shape` whose elements are 0, 1, 2, ... in C order.
Array iota(DType t, const Shape &shape) {
  Array a = Array::host(t, shape);
  for (int64_t i = 0; i < a.size(); ++i) {
    if (t == DType::Float64) a.host_data<double>()[i] = static_cast<double>(i);
    if (t == DType::Float32) a.host_data<float>()[i] = static_cast<float>(i);
    if (t == DType::Int32) a.host_data<int32_t>()[i] = static_cast<int32_t>(i);
  }
  return a;
}

/// Element of a float64 view at a multi-index.
double at(const ArrayView &v, const Shape &index) {
  int64_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * v.strides[d];
  double x = 0;
  std::memcpy(&x, static_cast<const char *>(v.data) + offset, sizeof x);
  return x;
}


/// The broadcast index of an operand of shape `s` for an output index.
Shape operand_index(const Shape &s, const Shape &out_index) {
  Shape idx(s.size());
  const std::size_t offset = out_index.size() - s.size();
  for (std::size_t d = 0; d < s.size(); ++d) idx[d] = s[d] == 1 ? 0 : out_index[offset + d];
  return idx;
}

void expect_combine(const Array &r, const ArrayView &a, const ArrayView &b, const Shape &shape) {
  ASSERT_EQ(r.shape(), shape);
  for_each_index(shape, [&](const Shape &i) {
    const double expected = at(a, operand_index(a.shape, i)) * 100 + at(b, operand_index(b.shape, i));
    ASSERT_EQ(at(r.view(), i), expected) << "at flat index " << i.size();
  });
}

TEST_F(CallTest, BroadcastsThreeDimsWithTwoDims) {
  Array a = iota(DType::Float64, {3, 1, 4});
  Array b = iota(DType::Float64, {5, 1});
  Array r = combine_(a, b);
  expect_combine(r, a.view(), b.view(), {3, 5, 4});
}

TEST_F(CallTest, BroadcastsFiveDimsWithOneDim) {
  Array a = iota(DType::Float64, {2, 3, 1, 2, 3});
  Array b = iota(DType::Float64, {3});
  Array r = combine_(a, b);
  expect_combine(r, a.view(), b.view(), {2, 3, 1, 2, 3});
}

TEST_F(CallTest, StrideZeroViewReadsOneElementRepeatedly) {
  std::vector<double> one = {7};
  ArrayView repeated{one.data(), DType::Float64, {4}, {0}};
  Array b = iota(DType::Float64, {4});
  Array r = combine_(repeated, b);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{700, 701, 702, 703}));
}

TEST_F(CallTest, NegativeStridesReadBackwards) {
  Array base = iota(DType::Float64, {3, 4});
  ArrayView reversed = base.view();
  reversed.data = base.host_data<double>() + 11;
  reversed.strides = {-32, -8};
  Array r = combine_(reversed, 0.5);
  for_each_index({3, 4}, [&](const Shape &i) {
    EXPECT_EQ(at(r.view(), i), (11 - (i[0] * 4 + i[1])) * 100 + 0.5);
  });
}

TEST_F(CallTest, FortranOrderedInputsGiveAFortranOrderedOutput) {
  Array a = iota(DType::Float64, {4, 3});  // memory of a (3, 4) Fortran array
  ArrayView fa{a.data(), DType::Float64, {3, 4}, {8, 24}};
  Array b = iota(DType::Float64, {4, 3});
  ArrayView fb{b.data(), DType::Float64, {3, 4}, {8, 24}};
  Array r = combine_(fa, fb);
  EXPECT_TRUE(r.view().is_f_contiguous());
  EXPECT_FALSE(r.view().is_c_contiguous());
  expect_combine(r, fa, fb, {3, 4});
}

TEST_F(CallTest, MixedOrderInputsGiveACOrderedOutput) {
  Array a = iota(DType::Float64, {4, 3});
  ArrayView fa{a.data(), DType::Float64, {3, 4}, {8, 24}};
  Array b = iota(DType::Float64, {3, 4});
  Array r = combine_(fa, b);
  EXPECT_TRUE(r.view().is_c_contiguous());
  expect_combine(r, fa, b.view(), {3, 4});
}

TEST_F(CallTest, ScalarsOnlyGiveAZeroDimResult) {
  Array r = combine_(2.0, 0.25);
  EXPECT_EQ(r.view().ndim(), 0);
  EXPECT_EQ(r.dtype(), DType::Float64);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{200.25}));
}

TEST_F(CallTest, ZeroDimArraysAndScalarsGiveAZeroDimResult) {
  Array a = Array::host(DType::Float32, {});
  a.host_data<float>()[0] = 3;
  Array r = combine_(a, 1);
  EXPECT_EQ(r.view().ndim(), 0);
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{301}));
}

TEST_F(CallTest, EmptyOperandsGiveAnEmptyResult) {
  Array a = iota(DType::Float64, {0, 3});
  Array b = iota(DType::Float64, {1, 3});
  Array r = combine_(a, b);
  EXPECT_EQ(r.shape(), (Shape{0, 3}));
  EXPECT_EQ(r.size(), 0);
}

TEST_F(CallTest, ShapeMismatchNamesBothShapesAndWritesNothing) {
  Array a = iota(DType::Float64, {3, 4});
  Array b = iota(DType::Float64, {5});
  std::vector<double> out(12, -1.0);
  try {
    combine_(a, b, ufjit::out(ufjit::view(out.data(), {3, 4})));
    FAIL() << "expected ShapeError";
  } catch (const ufjit::ShapeError &e) {
    EXPECT_STREQ(e.what(), "operands could not be broadcast together with shapes (3,4) (5,)");
  }
  EXPECT_EQ(out, std::vector<double>(12, -1.0));
}

TEST_F(CallTest, DispatchFailureListsDtypesAndSignatures) {
  std::vector<std::complex<float>> z(3);
  Array b = iota(DType::Float32, {3});
  try {
    combine_(ufjit::view(z), b);
    FAIL() << "expected DispatchError";
  } catch (const ufjit::DispatchError &e) {
    EXPECT_STREQ(e.what(),
                 "no signature of 'combine' matches inputs (complex64, float32); tried: float32(float32, float32), "
                 "float64(float64, float64). Add a signature for these types, or convert the inputs (e.g. with "
                 "astype)");
  }
}

TEST_F(CallTest, OutWithWrongShapeOrDtypeIsRejectedBeforeWriting) {
  Array a = iota(DType::Float64, {3});
  std::vector<double> wrong_shape(4, -1.0);
  EXPECT_THROW(combine_(a, 1.0, ufjit::out(wrong_shape)), ufjit::ShapeError);
  EXPECT_EQ(wrong_shape, std::vector<double>(4, -1.0));
  std::vector<float> wrong_dtype(3, -1.0f);
  try {
    combine_(a, 1.0, ufjit::out(wrong_dtype));
    FAIL() << "expected DispatchError";
  } catch (const ufjit::DispatchError &e) {
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
  }
  EXPECT_EQ(wrong_dtype, std::vector<float>(3, -1.0f));
}

TEST_F(CallTest, OutReceivesTheResultAndNothingIsReturned) {
  std::vector<float> x = {1, 2, 3};
  std::vector<float> y(3);
  Array r = combine_(ufjit::view(x), 0.5, ufjit::out(y));
  EXPECT_TRUE(r.empty_handle());
  EXPECT_EQ(y, (std::vector<float>{100.5f, 200.5f, 300.5f}));
}

TEST_F(CallTest, StridedOutWritesOnlyItsElements) {
  std::vector<double> x = {1, 2, 3};
  std::vector<double> storage(6, -1.0);
  ArrayView every_other{storage.data(), DType::Float64, {3}, {16}};
  combine_(ufjit::view(x), 0.0, ufjit::out(every_other));
  EXPECT_EQ(storage, (std::vector<double>{100, -1, 200, -1, 300, -1}));
}

TEST_F(CallTest, IntArraysCastSafelyToTheFirstReachableSignature) {
  Array a = iota(DType::Int32, {4});  // int32 -> float64 is safe, -> float32 is not
  Array r = combine_(a, 0.5);
  EXPECT_EQ(r.dtype(), DType::Float64);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{0.5, 100.5, 200.5, 300.5}));
}

TEST_F(CallTest, WeakDoubleScalarKeepsFloat32AndTypedScalarDoesNot) {
  Array a = iota(DType::Float32, {2});
  EXPECT_EQ(combine_(a, 0.1).dtype(), DType::Float32);
  EXPECT_EQ(combine_(a, ufjit::typed(0.1)).dtype(), DType::Float64);
  // The weak scalar is rounded to float32 once, as NumPy does.
  EXPECT_EQ(combine_(a, 0.1).to_vector<float>()[1], 100.0f + 0.1f);
}

TEST_F(CallTest, WeakIntThatDoesNotFitIsAnError) {
  ufjit::Ufunc f = rt_->vectorize("def f(a, b):\n    return a + b\n", {"int8(int8, int8)"});
  std::vector<int8_t> x = {1, 2};
  EXPECT_EQ(f(ufjit::view(x), 100).to_vector<int8_t>(), (std::vector<int8_t>{101, 102}));
  EXPECT_THROW(f(ufjit::view(x), 1000), ufjit::DispatchError);
}

TEST_F(CallTest, WrongNumberOfOperandsIsADispatchError) {
  EXPECT_THROW(combine_(1.0), ufjit::DispatchError);
  EXPECT_THROW(combine_(1.0, 2.0, 3.0), ufjit::DispatchError);
}

TEST_F(CallTest, DeviceOperandOnTheCpuTargetIsRejected) {
  ArrayView device{reinterpret_cast<void *>(uintptr_t{1} << 40), DType::Float64, {3}, {8}, ufjit::Residence::Device};
  EXPECT_THROW(combine_(device, 1.0), ufjit::InputError);
}

TEST_F(CallTest, MoreThanEightDimsThatDoNotMergeAreRejected) {
  // Nine dims of size 2 taken with a gap in every dim: nothing merges.
  Shape shape(9, 2);
  std::vector<int64_t> strides(9);
  int64_t s = 16;
  for (int d = 8; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = s;
    s *= 4;
  }
  std::vector<double> storage(static_cast<std::size_t>(s / 8));
  ArrayView gappy{storage.data(), DType::Float64, shape, strides};
  EXPECT_THROW(combine_(gappy, 1.0), ufjit::ShapeError);
}

TEST_F(CallTest, ManyContiguousDimsMergeAndRun) {
  Array a = iota(DType::Float64, Shape(12, 2));
  Array r = combine_(a, 1.0);
  EXPECT_EQ(r.shape(), Shape(12, 2));
  EXPECT_EQ(r.to_vector<double>()[4095], 4095 * 100 + 1.0);
}

TEST_F(CallTest, LargeCallsSplitOverThreadsGiveTheSameResult) {
  const int64_t n = (1 << 20) + 3;
  Array a = iota(DType::Float32, {n});
  Array r = combine_(a, 0.5);
  const float *p = r.host_data<float>();
  for (int64_t i = 0; i < n; i += 997) {
    ASSERT_EQ(p[i], static_cast<float>(i) * 100.0f + 0.5f) << "element " << i;
  }
  ASSERT_EQ(p[n - 1], static_cast<float>(n - 1) * 100.0f + 0.5f);
}

TEST_F(CallTest, ManyThreadsCallOneFreshUfuncAtOnce) {
  ufjit::Ufunc f = rt_->vectorize("def g(x):\n    return x * 3 + 1\n", {"int64(int64)"});
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<int64_t> x(1000 + static_cast<std::size_t>(t) * 50000);
        std::iota(x.begin(), x.end(), int64_t{t});
        Array r = f(ufjit::view(x));
        const int64_t *p = r.host_data<int64_t>();
        for (std::size_t i = 0; i < x.size(); ++i) {
          if (p[i] != x[i] * 3 + 1) {
            ++failures;
            break;
          }
        }
      }
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(CallTest, ManyThreadsCompileAtOnce) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      ufjit::Ufunc f = rt_->vectorize("def h(x):\n    return x - " + std::to_string(t) + "\n", {"float64(float64)"});
      Array r = f(10.0);
      if (r.to_vector<double>()[0] != 10.0 - t) ++failures;
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(CallTest, SizeOneHostArraysTravelAsScalars) {
  std::vector<double> one = {0.25};
  Array b = iota(DType::Float64, {2, 3});
  Array r = combine_(b, ufjit::view(one));
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(r.to_vector<double>()[5], 500.25);
}

TEST_F(CallTest, ToHostCopiesAStridedViewInCOrder) {
  Array base = iota(DType::Float64, {4, 3});
  ArrayView transposed{base.data(), DType::Float64, {3, 4}, {8, 24}};
  Array copy = rt_->to_host(transposed);
  EXPECT_TRUE(copy.view().is_c_contiguous());
  EXPECT_EQ(copy.to_vector<double>(), (std::vector<double>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
}

TEST(Api, SignaturesAndNameAreCanonical) {
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  ufjit::Ufunc f = rt.vectorize("def f(x):\n    return x\n", {"f4(f4)", "double(double)"});
  EXPECT_EQ(f.name(), "f");
  EXPECT_EQ(f.signatures(), (std::vector<std::string>{"float32(float32)", "float64(float64)"}));
  EXPECT_EQ(rt.target(), ufjit::TargetKind::Cpu);
}

TEST(Api, LoadGivesEveryUfuncByName) {
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  ufjit::UfuncSet set = rt.load(
      "from numba import vectorize\n\n"
      "@vectorize(['float64(float64)'])\ndef twice(x):\n    return 2 * x\n\n"
      "@vectorize(['int64(int64, int64)'])\ndef plus(a, b):\n    return a + b\n");
  EXPECT_EQ(set.names(), (std::vector<std::string>{"twice", "plus"}));
  EXPECT_EQ(set["twice"](4.0).to_vector<double>()[0], 8.0);
  EXPECT_EQ(set["plus"](2, 3).to_vector<int64_t>()[0], 5);
  try {
    set["twise"];
    FAIL() << "expected an error";
  } catch (const ufjit::Error &e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'twice'"), std::string::npos) << e.what();
  }
}

TEST(Api, CompileErrorsCarryDiagnostics) {
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  try {
    rt.vectorize("import math\n\ndef f(x):\n    return math.exq(x)\n", {"float64(float64)"}, "gauss.ufn");
    FAIL() << "expected CompileError";
  } catch (const ufjit::CompileError &e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics().front().file, "gauss.ufn");
    EXPECT_EQ(e.diagnostics().front().line, 4);
    EXPECT_NE(std::string(e.what()).find("gauss.ufn:4:"), std::string::npos) << e.what();
  }
}

TEST(Api, VectorizeOfASourceWithTwoUfuncsIsAnError) {
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  EXPECT_THROW(rt.vectorize("@vectorize(['float64(float64)'])\ndef a(x):\n    return x\n\n"
                            "@vectorize(['float64(float64)'])\ndef b(x):\n    return x\n"),
               ufjit::CompileError);
}

TEST(Api, LoadFileOfAMissingFileIsAnInputError) {
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  EXPECT_THROW(rt.load_file("/nonexistent/k.ufn"), ufjit::InputError);
}

TEST(Api, LoadFileRefusesAFifoOrADirectoryAtOnceInsteadOfWaiting) {
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  char dir_template[] = "/tmp/ufjit-load-file-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string fifo = dir + "/k.ufn";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: a blocking read would hang the test.
  EXPECT_THROW(rt.load_file(fifo), ufjit::InputError);
  EXPECT_THROW(rt.load_file(dir), ufjit::InputError);
  unlink(fifo.c_str());
  rmdir(dir.c_str());
}

TEST(Api, EmptyUfuncThrowsInsteadOfCrashing) {
  ufjit::Ufunc f;
  EXPECT_THROW(f.name(), ufjit::InputError);
  EXPECT_THROW(f(1.0), ufjit::InputError);
}

TEST(Api, VersionNamesUfjitAndLlvm) {
  const std::string v = ufjit::version();
  EXPECT_NE(v.find("LLVM 19"), std::string::npos) << v;
}

TEST(Api, UfuncOutlivesItsRuntime) {
  ufjit::Ufunc f;
  {
    ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
    f = rt.vectorize("def f(x):\n    return x + 1\n", {"int64(int64)"});
  }
  EXPECT_EQ(f(41).to_vector<int64_t>()[0], 42);
}

}  // namespace

namespace {

TEST_F(CallTest, TypedArrayChecksItsDtypeOnceAndCallsLikeAnArray) {
  ufjit::TypedArray<double> a(Array::host(DType::Float64, {3}));
  for (int i = 0; i < 3; ++i) {
    a.data()[i] = i;
  }
  Array r = combine_(a, a);
  ASSERT_EQ(r.dtype(), DType::Float64);
  EXPECT_EQ(r.host_data<double>()[2], 202.0);
  try {
    ufjit::TypedArray<float> wrong(Array::host(DType::Float64, {3}));
    FAIL() << "a float64 array was accepted as TypedArray<float>";
  } catch (const ufjit::InputError &e) {
    EXPECT_NE(std::string(e.what()).find("TypedArray<float32> given an array of float64"), std::string::npos)
        << e.what();
  }
}

}  // namespace

TEST_F(CallTest, ScalarsPastTheThirtySecondOfSixtyThreeInputsAreTheirOwnParameters) {
  // Input k weighs k + 1; inputs 3, 35 and 62 are scalars, the rest arrays
  // of 1, 2, 3 (the variant's scalar mask once held 32 inputs).
  std::string params, body = "    return a0", sig = "float64(float64";
  for (int k = 0; k < 63; ++k) params += (k == 0 ? "a" : ", a") + std::to_string(k);
  for (int k = 1; k < 63; ++k) body += " + a" + std::to_string(k) + " * " + std::to_string(k + 1);
  for (int k = 1; k < 63; ++k) sig += ", float64";
  ufjit::Ufunc f = rt_->vectorize("def wide(" + params + "):\n" + body + "\n", {sig + ")"});
  std::vector<double> values = {1.0, 2.0, 3.0};
  std::vector<ufjit::Operand> operands;
  for (int k = 0; k < 63; ++k) {
    operands.push_back(k == 3 || k == 35 || k == 62 ? ufjit::Operand(10.0 * k) : ufjit::Operand(ufjit::view(values)));
  }
  const std::vector<double> got = f.call(operands).to_vector<double>();
  ASSERT_EQ(got.size(), values.size());
  for (std::size_t j = 0; j < values.size(); ++j) {
    double expected = 0;
    for (int k = 0; k < 63; ++k) {
      expected += (k + 1) * (k == 3 || k == 35 || k == 62 ? 10.0 * k : values[j]);
    }
    EXPECT_EQ(got[j], expected) << "element " << j;
  }
}

// A call with the structure of the last one runs through its plan before the
// call is bound (runtime/CallPlan.h): each call still reads its own data,
// and a call that differs, or whose pointers fail a check, gets the full
// path's error.
TEST_F(CallTest, RepeatedCallsOfOneStructureReadTheirOwnDataAndADifferentCallStillFails) {
  Array a = iota(DType::Float64, {4});
  Array b = iota(DType::Float64, {4});
  Array o = Array::host(DType::Float64, {4});
  for (int round = 0; round < 3; ++round) {
    for (int64_t i = 0; i < 4; ++i) {
      a.host_data<double>()[i] = static_cast<double>(round * 10 + i);
    }
    expect_combine(combine_(a, b), a.view(), b.view(), {4});
    combine_(a, b, ufjit::out(o));
    expect_combine(o, a.view(), b.view(), {4});
  }
  EXPECT_THROW(combine_(a), ufjit::DispatchError);
  ArrayView null_data{nullptr, DType::Float64, {4}, {8}};
  EXPECT_THROW(combine_(null_data, b), ufjit::InputError);
  Array narrow = iota(DType::Float64, {3});
  EXPECT_THROW(combine_(a, b, ufjit::out(narrow)), ufjit::ShapeError);
  expect_combine(combine_(b, a), b.view(), a.view(), {4});
}
