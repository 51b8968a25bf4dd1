// Float semantics of the scalar lowering: Python floor division and modulo,
// IEEE comparisons, casts (saturating, never poison), float16 rounding.
#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen_lower_jit.h"

namespace ufjit::codegen::testing {
namespace {

using ir::BinaryOpcode;

ir::Module binary_module(BinaryOpcode op, DType t) {
  return expr_module({t, t}, [&](const std::vector<ir::Expr> &p) { return ir::Binary::make(op, p[0], p[1]); });
}

ir::Module cast_module(DType from, DType to) {
  return expr_module({from}, [to](const std::vector<ir::Expr> &p) { return ir::Cast::make(to, p[0]); });
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// Same value and, for zeros, the same sign (NaN matches NaN).
::testing::AssertionResult same_double(double actual, double expected) {
  bool both_nan = std::isnan(actual) && std::isnan(expected);
  bool equal = actual == expected && std::signbit(actual) == std::signbit(expected);
  if (both_nan || equal) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "actual " << actual << ", expected " << expected;
}

struct DivModCase {
  double a, b, floordiv, mod;
};

TEST(LowerFloat, FloorDivAndModFollowPython) {
  Jit div(binary_module(BinaryOpcode::FloorDiv, DType::Float64));
  Jit mod(binary_module(BinaryOpcode::Mod, DType::Float64));
  // Python 3 results (CPython float_floor_div / float_mod), written out.
  const DivModCase cases[] = {
      {7.0, 2.0, 3.0, 1.0},
      {-7.0, 2.0, -4.0, 1.0},
      {7.0, -2.0, -4.0, -1.0},
      {-7.0, -2.0, 3.0, -1.0},
      {0.0, -2.0, -0.0, -0.0},
      {-0.0, 2.0, -0.0, 0.0},
      {1.0, 0.1, 9.0, 0.09999999999999995},
      {-1.0, kInf, -1.0, kInf},
      {1.0, kInf, 0.0, 1.0},
      {kInf, 2.0, kNan, kNan},
      {5.5, 2.5, 2.0, 0.5},
      {-5.5, 2.5, -3.0, 2.0},
  };
  for (const DivModCase &c : cases) {
    EXPECT_TRUE(same_double(div.call<double>(c.a, c.b), c.floordiv)) << c.a << " // " << c.b;
    EXPECT_TRUE(same_double(mod.call<double>(c.a, c.b), c.mod)) << c.a << " % " << c.b;
  }
}

TEST(LowerFloat, FloorDivByZeroGivesIeeeResults) {
  Jit div(binary_module(BinaryOpcode::FloorDiv, DType::Float64));
  Jit mod(binary_module(BinaryOpcode::Mod, DType::Float64));
  EXPECT_TRUE(same_double(div.call<double>(5.0, 0.0), kInf));
  EXPECT_TRUE(same_double(div.call<double>(-5.0, 0.0), -kInf));
  EXPECT_TRUE(std::isnan(mod.call<double>(5.0, 0.0)));
}

TEST(LowerFloat, FloorDivModIdentityHoldsOnFloat32) {
  Jit div(binary_module(BinaryOpcode::FloorDiv, DType::Float32));
  Jit mod(binary_module(BinaryOpcode::Mod, DType::Float32));
  EXPECT_EQ(div.call<float>(-7.0f, 2.0f), -4.0f);
  EXPECT_EQ(mod.call<float>(-7.0f, 2.0f), 1.0f);
  const float values[] = {-13.25f, -3.5f, -1.0f, 0.75f, 2.0f, 9.5f, 1000.125f};
  for (float a : values) {
    for (float b : values) {
      float q = div.call<float>(a, b);
      float r = mod.call<float>(a, b);
      EXPECT_EQ(q, std::floor(q)) << a << " // " << b << " is not integral";
      EXPECT_NEAR(q * b + r, a, 1e-3) << a << ", " << b;
      EXPECT_TRUE(r == 0.0f || std::signbit(r) == std::signbit(b)) << a << " % " << b << " = " << r;
      EXPECT_LT(std::fabs(r), std::fabs(b)) << a << " % " << b;
    }
  }
}

TEST(LowerFloat, ComparisonsWithNanAreOrderedExceptNotEqual) {
  auto compare = [](ir::CompareOpcode op) {
    return expr_module({DType::Float64, DType::Float64},
                       [op](const std::vector<ir::Expr> &p) { return ir::Compare::make(op, p[0], p[1]); });
  };
  Jit lt(compare(ir::CompareOpcode::Lt));
  Jit ge(compare(ir::CompareOpcode::Ge));
  Jit eq(compare(ir::CompareOpcode::Eq));
  Jit ne(compare(ir::CompareOpcode::Ne));
  EXPECT_FALSE(lt.call<bool>(kNan, 1.0));
  EXPECT_FALSE(ge.call<bool>(kNan, 1.0));
  EXPECT_FALSE(eq.call<bool>(kNan, kNan));
  EXPECT_TRUE(ne.call<bool>(kNan, kNan));
  EXPECT_TRUE(ne.call<bool>(kNan, 1.0));
  EXPECT_TRUE(eq.call<bool>(0.0, -0.0));
  EXPECT_TRUE(lt.call<bool>(-kInf, 0.0));
}

TEST(LowerFloat, FloatToIntTruncatesTowardZero) {
  EXPECT_EQ(Jit(cast_module(DType::Float64, DType::Int64)).call<int64_t>(-3.9), -3);
  EXPECT_EQ(Jit(cast_module(DType::Float32, DType::Int32)).call<int32_t>(3.9f), 3);
  EXPECT_EQ(Jit(cast_module(DType::Float64, DType::UInt64)).call<uint64_t>(9223372036854775808.0),
            uint64_t{9223372036854775808ull});
  EXPECT_EQ(Jit(cast_module(DType::Float64, DType::UInt64)).call<uint64_t>(1.8e19), uint64_t{18000000000000000000ull});
  // As NumPy's astype on x86: negative values wrap into unsigned types.
  EXPECT_EQ(Jit(cast_module(DType::Float64, DType::UInt8)).call<uint8_t>(-1.0), 255);
}

TEST(LowerFloat, FloatToIntOfNanInfAndHugeValuesDoesNotTrap) {
  Jit to_i64(cast_module(DType::Float64, DType::Int64));
  Jit to_i32(cast_module(DType::Float32, DType::Int32));
  Jit to_u64(cast_module(DType::Float64, DType::UInt64));
  Jit to_i8(cast_module(DType::Float64, DType::Int8));
  // Values are unspecified; the calls must simply return.
  const double inputs[] = {kNan, kInf, -kInf, 1e300, -1e300};
  for (double x : inputs) {
    (void)to_i64.call<int64_t>(x);
    (void)to_u64.call<uint64_t>(x);
    (void)to_i8.call<int8_t>(x);
    (void)to_i32.call<int32_t>(static_cast<float>(x));
  }
  SUCCEED();
}

TEST(LowerFloat, FloatToBoolTreatsNanAsTrueAndSignedZeroAsFalse) {
  Jit to_bool(cast_module(DType::Float64, DType::Bool));
  EXPECT_TRUE(to_bool.call<bool>(kNan));
  EXPECT_FALSE(to_bool.call<bool>(-0.0));
  EXPECT_TRUE(to_bool.call<bool>(1e-320));
}

TEST(LowerFloat, Float64ToFloat16RoundsOnceToNearestEven) {
  Jit to_half(cast_module(DType::Float64, DType::Float16));
  // 1 + 2**-11 + 2**-40 lies just above the midpoint between float16 1.0 and
  // 1 + 2**-10: correct rounding goes up; rounding through float32 first
  // would hit the exact midpoint and go down to 1.0.
  double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(to_half.call<uint16_t>(x), 0x3C01);
  EXPECT_EQ(to_half.call<uint16_t>(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(to_half.call<uint16_t>(65520.0), 0x7C00);  // rounds to inf
  EXPECT_EQ(to_half.call<uint16_t>(65519.0), 0x7BFF);  // 65504
}

TEST(LowerFloat, Float16ArithmeticRoundsAfterEachOperation) {
  Jit add(binary_module(BinaryOpcode::Add, DType::Float16));
  Jit mul(binary_module(BinaryOpcode::Mul, DType::Float16));
  const float values[] = {1.0f, 0.000488281f, 3.14159f, -2.5f, 65504.0f, 0.1f, 1e-7f};
  for (float fa : values) {
    for (float fb : values) {
      uint16_t a = float_to_half_bits(fa);
      uint16_t b = float_to_half_bits(fb);
      float ha = half_bits_to_float(a);
      float hb = half_bits_to_float(b);
      EXPECT_EQ(add.call<uint16_t>(a, b), float_to_half_bits(ha + hb)) << ha << " + " << hb;
      EXPECT_EQ(mul.call<uint16_t>(a, b), float_to_half_bits(ha * hb)) << ha << " * " << hb;
    }
  }
}

TEST(LowerFloat, Float16ConvertsToAndFromIntegers) {
  EXPECT_EQ(Jit(cast_module(DType::Int64, DType::Float16)).call<uint16_t>(int64_t{65519}), 0x7BFF);
  EXPECT_EQ(Jit(cast_module(DType::Int64, DType::Float16)).call<uint16_t>(int64_t{-2049}), float_to_half_bits(-2048.0f));
  EXPECT_EQ(Jit(cast_module(DType::Float16, DType::Int32)).call<int32_t>(float_to_half_bits(-7.75f)), -7);
  EXPECT_EQ(Jit(cast_module(DType::Float16, DType::Float64)).call<double>(uint16_t{0x0001}), std::ldexp(1.0, -24));
}

TEST(LowerFloat, BoolAndIntegersConvertToFloats) {
  EXPECT_EQ(Jit(cast_module(DType::Bool, DType::Float32)).call<float>(true), 1.0f);
  EXPECT_EQ(Jit(cast_module(DType::UInt8, DType::Float64)).call<double>(uint8_t{255}), 255.0);
  EXPECT_EQ(Jit(cast_module(DType::Float32, DType::Float64)).call<double>(0.1f), static_cast<double>(0.1f));
  EXPECT_EQ(Jit(cast_module(DType::Float64, DType::Float32)).call<float>(0.1), 0.1f);
}

TEST(LowerFloat, NegationFlipsTheSignOfZero) {
  Jit neg(expr_module({DType::Float64}, [](const std::vector<ir::Expr> &p) {
    return ir::Unary::make(ir::UnaryOpcode::Neg, p[0]);
  }));
  EXPECT_TRUE(same_double(neg.call<double>(0.0), -0.0));
}

TEST(LowerFloat, FloatPowCallsCPow) {
  Jit pow(binary_module(BinaryOpcode::Pow, DType::Float64));
  EXPECT_EQ(pow.call<double>(2.0, 0.5), std::pow(2.0, 0.5));
  EXPECT_TRUE(std::isnan(pow.call<double>(-8.0, 1.0 / 3.0)));
  EXPECT_EQ(pow.call<double>(0.0, -1.0), kInf);
}

}  // namespace
}  // namespace ufjit::codegen::testing
