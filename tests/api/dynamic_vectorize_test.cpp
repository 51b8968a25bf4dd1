// Signature-less @vectorize (Numba's dynamic ufunc): compiled for the
// operand types at the first call, a signature added per new combination,
// weak scalars typed by NEP 50, the return type inferred. Runs on the
// Runtime's default target (the GPU on the GPU host with UFJIT_TARGET=cuda).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using ufjit::Array;
using ufjit::DType;

constexpr const char *kSource = R"SRC(
from numba import vectorize

@vectorize
def scale(x, y):
    return x * y + 1

@vectorize()
def halve(x):
    return x / 2

@vectorize(target='cuda', identity=0)
def plus(a, b):
    return a + b

@vectorize(["float64(float64)"])
def fixed(x):
    return x
)SRC";

class DynamicVectorizeTest : public ::testing::Test {
 protected:
  void SetUp() override { set_ = rt_.load(kSource); }
  ufjit::Runtime rt_;
  ufjit::UfuncSet set_;
};

TEST_F(DynamicVectorizeTest, FirstCallCompilesForTheOperandTypes) {
  ufjit::Ufunc scale = set_["scale"];
  EXPECT_TRUE(scale.signatures().empty());
  std::vector<float> x = {1, 2, 3};
  std::vector<float> y = {4, 5, 6};
  Array r = scale(x, y);
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{5, 11, 19}));
  EXPECT_EQ(scale.signatures(), std::vector<std::string>{"float32(float32, float32)"});
  // The same types again: no new signature.
  scale(y, x);
  EXPECT_EQ(scale.signatures().size(), 1u);
  // int64 arrays add int64(int64, int64).
  std::vector<int64_t> i = {1, 2, 3};
  Array ri = scale(i, i);
  EXPECT_EQ(ri.dtype(), DType::Int64);
  EXPECT_EQ(ri.to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 10}));
  EXPECT_EQ(scale.signatures(),
            (std::vector<std::string>{"float32(float32, float32)", "int64(int64, int64)"}));
}

TEST_F(DynamicVectorizeTest, WeakScalarsFollowNep50AndTheReturnTypeIsInferred) {
  ufjit::Ufunc scale = set_["scale"];
  std::vector<float> x = {1, 2};
  // float32 array * 2.5 (weak): float32, as NumPy 2.
  Array r = scale(x, 2.5);
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{3.5f, 6.0f}));
  // int8 array and a weak float: float64.
  std::vector<int8_t> small = {1, 2};
  EXPECT_EQ(scale(small, 0.5).dtype(), DType::Float64);
  // Only weak scalars: their default dtypes; int / 2 is float64 (true division).
  ufjit::Ufunc halve = set_["halve"];
  Array h = halve(std::vector<int32_t>{3, 4});
  EXPECT_EQ(h.dtype(), DType::Float64);
  EXPECT_EQ(h.to_vector<double>(), (std::vector<double>{1.5, 2.0}));
  EXPECT_EQ(halve.signatures(), std::vector<std::string>{"float64(int32)"});
  Array s = halve(7);
  EXPECT_EQ(s.to_vector<double>(), std::vector<double>{3.5});
}

TEST_F(DynamicVectorizeTest, MethodsAndOptionsWork) {
  ufjit::Ufunc plus = set_["plus"];
  EXPECT_EQ(plus.identity(), ufjit::Identity::Zero);
  std::vector<int32_t> a = {1, 2, 3, 4};
  Array r = plus.reduce(a);
  EXPECT_EQ(r.to_vector<int32_t>(), std::vector<int32_t>{10});
  EXPECT_EQ(plus.signatures(), std::vector<std::string>{"int32(int32, int32)"});
  EXPECT_EQ(set_["fixed"].signatures(), std::vector<std::string>{"float64(float64)"});
}

TEST_F(DynamicVectorizeTest, TypeErrorsAreCompileErrorsAtTheCall) {
  ufjit::Ufunc halve = set_["halve"];
  EXPECT_THROW(halve(std::vector<float>{1}, std::vector<float>{2}), ufjit::CompileError);
  // An unknown name is found when the body is typed: at load or at the first call.
  EXPECT_THROW(
      {
        ufjit::Ufunc bad = rt_.vectorize("@vectorize\ndef bad(x):\n    return undefined_name + x\n");
        bad(std::vector<float>{1});
      },
      ufjit::CompileError);
}

TEST_F(DynamicVectorizeTest, ManyThreadsAddEachSignatureOnce) {
  ufjit::Ufunc scale = set_["scale"];
  std::vector<std::thread> threads;
  std::vector<int> failures(12, 0);
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 5; ++k) {
        if (t % 3 == 0) {
          failures[t] += scale(std::vector<int32_t>{2}, std::vector<int32_t>{3}).to_vector<int32_t>() !=
                         std::vector<int32_t>{7};
        } else if (t % 3 == 1) {
          failures[t] += scale(std::vector<float>{2}, std::vector<float>{3}).to_vector<float>() !=
                         std::vector<float>{7};
        } else {
          failures[t] += scale(std::vector<double>{2}, 3.0).to_vector<double>() != std::vector<double>{7};
        }
      }
    });
  }
  for (std::thread &th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(12, 0));
  std::vector<std::string> sigs = scale.signatures();
  std::sort(sigs.begin(), sigs.end());
  EXPECT_EQ(sigs, (std::vector<std::string>{"float32(float32, float32)", "float64(float64, float64)",
                                            "int32(int32, int32)"}));
}

}  // namespace
