// Real math intrinsics on the CPU: results within 1 ulp of the C library,
// frexp/modf tuples, classification, float16 math computed in float32.
#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen_lower_jit.h"

namespace ufjit::codegen::testing {
namespace {

using ir::IntrinsicOp;

ir::Module intrinsic_module(IntrinsicOp op, DType t, int arity) {
  std::vector<DType> params(static_cast<std::size_t>(arity), t);
  return expr_module(params, [&](const std::vector<ir::Expr> &p) { return ir::Intrinsic::make(op, scalar(t), p); });
}

struct Unary {
  IntrinsicOp op;
  double (*f64)(double);
  float (*f32)(float);
};

const Unary kUnary[] = {
    {IntrinsicOp::Acos, ::acos, ::acosf},     {IntrinsicOp::Acosh, ::acosh, ::acoshf},
    {IntrinsicOp::Asin, ::asin, ::asinf},     {IntrinsicOp::Asinh, ::asinh, ::asinhf},
    {IntrinsicOp::Atan, ::atan, ::atanf},     {IntrinsicOp::Atanh, ::atanh, ::atanhf},
    {IntrinsicOp::Cbrt, ::cbrt, ::cbrtf},     {IntrinsicOp::Ceil, ::ceil, ::ceilf},
    {IntrinsicOp::Cos, ::cos, ::cosf},        {IntrinsicOp::Cosh, ::cosh, ::coshf},
    {IntrinsicOp::Erf, ::erf, ::erff},        {IntrinsicOp::Erfc, ::erfc, ::erfcf},
    {IntrinsicOp::Exp, ::exp, ::expf},        {IntrinsicOp::Exp2, ::exp2, ::exp2f},
    {IntrinsicOp::Expm1, ::expm1, ::expm1f},  {IntrinsicOp::Fabs, ::fabs, ::fabsf},
    {IntrinsicOp::Floor, ::floor, ::floorf},  {IntrinsicOp::Gamma, ::tgamma, ::tgammaf},
    {IntrinsicOp::Lgamma, ::lgamma, ::lgammaf}, {IntrinsicOp::Log, ::log, ::logf},
    {IntrinsicOp::Log10, ::log10, ::log10f},  {IntrinsicOp::Log1p, ::log1p, ::log1pf},
    {IntrinsicOp::Log2, ::log2, ::log2f},     {IntrinsicOp::Rint, ::rint, ::rintf},
    {IntrinsicOp::Sin, ::sin, ::sinf},        {IntrinsicOp::Sinh, ::sinh, ::sinhf},
    {IntrinsicOp::Sqrt, ::sqrt, ::sqrtf},     {IntrinsicOp::Tan, ::tan, ::tanf},
    {IntrinsicOp::Tanh, ::tanh, ::tanhf},     {IntrinsicOp::Trunc, ::trunc, ::truncf},
};

const double kPoints[] = {-2.5, -0.7, -0.0, 0.3, 0.5, 1.0, 1.7, 2.5, 10.25, 700.0};

TEST(LowerMath, UnaryFunctionsMatchTheCLibraryWithinOneUlp) {
  for (const Unary &u : kUnary) {
    Jit f64(intrinsic_module(u.op, DType::Float64, 1));
    Jit f32(intrinsic_module(u.op, DType::Float32, 1));
    for (double x : kPoints) {
      double actual = f64.call<double>(x);
      EXPECT_LE(ulp_distance(actual, u.f64(x)), 1) << ir::intrinsic_name(u.op) << "(" << x << ") = " << actual
                                                   << ", libm " << u.f64(x);
      float xf = static_cast<float>(x);
      float actual_f = f32.call<float>(xf);
      EXPECT_LE(ulp_distance(actual_f, u.f32(xf)), 1) << ir::intrinsic_name(u.op) << "f(" << xf << ") = " << actual_f
                                                      << ", libm " << u.f32(xf);
    }
  }
}

struct BinaryFn {
  IntrinsicOp op;
  double (*f64)(double, double);
};

TEST(LowerMath, BinaryFunctionsMatchTheCLibrary) {
  const BinaryFn fns[] = {
      {IntrinsicOp::Atan2, ::atan2},         {IntrinsicOp::Copysign, ::copysign}, {IntrinsicOp::Fmod, ::fmod},
      {IntrinsicOp::Hypot, ::hypot},         {IntrinsicOp::Nextafter, ::nextafter}, {IntrinsicOp::Pow, ::pow},
      {IntrinsicOp::Remainder, ::remainder},
  };
  const double points[] = {-3.5, -1.0, 0.0, 0.25, 2.0, 7.5};
  for (const BinaryFn &fn : fns) {
    Jit jit(intrinsic_module(fn.op, DType::Float64, 2));
    for (double a : points) {
      for (double b : points) {
        double actual = jit.call<double>(a, b);
        EXPECT_LE(ulp_distance(actual, fn.f64(a, b)), 1)
            << ir::intrinsic_name(fn.op) << "(" << a << ", " << b << ") = " << actual << ", libm " << fn.f64(a, b);
      }
    }
  }
}

TEST(LowerMath, FmaIsFusedAndLdexpScales) {
  Jit fma(intrinsic_module(IntrinsicOp::Fma, DType::Float64, 3));
  double a = 1.0 + std::ldexp(1.0, -30);
  // a*a - 1 - 2**-29 == 2**-60 exactly only when not rounded in between.
  EXPECT_EQ(fma.call<double>(a, a, -(1.0 + std::ldexp(1.0, -29))), std::ldexp(1.0, -60));
  Jit ldexp(expr_module({DType::Float32, DType::Int32}, [](const std::vector<ir::Expr> &p) {
    return ir::Intrinsic::make(IntrinsicOp::Ldexp, scalar(DType::Float32), p);
  }));
  EXPECT_EQ(ldexp.call<float>(0.75f, int32_t{4}), 12.0f);
  EXPECT_EQ(ldexp.call<float>(1.0f, int32_t{-149}), std::ldexp(1.0f, -149));
}

struct FrexpResult {
  double mantissa;
  int32_t exponent;
};

struct ModfResult {
  double fraction;
  double integral;
};

TEST(LowerMath, FrexpAndModfReturnTuples) {
  ir::Type frexp_type = ir::Type::tuple({scalar(DType::Float64), scalar(DType::Int32)});
  Jit frexp(expr_module({DType::Float64}, [&](const std::vector<ir::Expr> &p) {
    return ir::Intrinsic::make(IntrinsicOp::Frexp, frexp_type, p);
  }));
  FrexpResult r = frexp.call<FrexpResult>(48.0);
  EXPECT_EQ(r.mantissa, 0.75);
  EXPECT_EQ(r.exponent, 6);
  r = frexp.call<FrexpResult>(-0.1);
  int expected_exponent = 0;
  double expected_mantissa = std::frexp(-0.1, &expected_exponent);
  EXPECT_EQ(r.mantissa, expected_mantissa);
  EXPECT_EQ(r.exponent, expected_exponent);
  r = frexp.call<FrexpResult>(std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.exponent, 0);

  ir::Type modf_type = ir::Type::tuple({scalar(DType::Float64), scalar(DType::Float64)});
  Jit modf(expr_module({DType::Float64}, [&](const std::vector<ir::Expr> &p) {
    return ir::Intrinsic::make(IntrinsicOp::Modf, modf_type, p);
  }));
  ModfResult m = modf.call<ModfResult>(-3.25);
  EXPECT_EQ(m.fraction, -0.25);
  EXPECT_EQ(m.integral, -3.0);
  m = modf.call<ModfResult>(-2.0);
  EXPECT_EQ(m.fraction, 0.0);
  EXPECT_TRUE(std::signbit(m.fraction)) << "modf(-2.0) gives (-0.0, -2.0) in Python";
  m = modf.call<ModfResult>(std::numeric_limits<double>::infinity());
  EXPECT_EQ(m.fraction, 0.0);
  EXPECT_EQ(m.integral, std::numeric_limits<double>::infinity());
}

TEST(LowerMath, ClassificationOfSpecialValues) {
  auto classify = [](IntrinsicOp op) {
    return expr_module({DType::Float32}, [op](const std::vector<ir::Expr> &p) {
      return ir::Intrinsic::make(op, scalar(DType::Bool), p);
    });
  };
  Jit isnan(classify(IntrinsicOp::IsNan));
  Jit isinf(classify(IntrinsicOp::IsInf));
  Jit isfinite(classify(IntrinsicOp::IsFinite));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(isnan.call<bool>(nan));
  EXPECT_FALSE(isnan.call<bool>(inf));
  EXPECT_TRUE(isinf.call<bool>(-inf));
  EXPECT_FALSE(isinf.call<bool>(nan));
  EXPECT_FALSE(isfinite.call<bool>(nan));
  EXPECT_FALSE(isfinite.call<bool>(inf));
  EXPECT_TRUE(isfinite.call<bool>(std::numeric_limits<float>::max()));
}

TEST(LowerMath, FastmathKeepsNanAndInfinityChecksWorking) {
  Jit isnan(expr_module(
      {DType::Float64},
      [](const std::vector<ir::Expr> &p) { return ir::Intrinsic::make(IntrinsicOp::IsNan, scalar(DType::Bool), p); },
      true));
  Jit isinf(expr_module(
      {DType::Float32},
      [](const std::vector<ir::Expr> &p) { return ir::Intrinsic::make(IntrinsicOp::IsInf, scalar(DType::Bool), p); },
      true));
  EXPECT_TRUE(isnan.call<bool>(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(isnan.call<bool>(1.0));
  EXPECT_TRUE(isinf.call<bool>(-std::numeric_limits<float>::infinity()));
}

TEST(LowerMath, Float16MathIsComputedInFloat32AndRounded) {
  Jit sin(intrinsic_module(IntrinsicOp::Sin, DType::Float16, 1));
  Jit sqrt(intrinsic_module(IntrinsicOp::Sqrt, DType::Float16, 1));
  const float points[] = {0.1f, 0.5f, 1.0f, 3.0f, 100.0f};
  for (float p : points) {
    uint16_t x = float_to_half_bits(p);
    float hx = half_bits_to_float(x);
    EXPECT_EQ(sin.call<uint16_t>(x), float_to_half_bits(::sinf(hx))) << "sin(" << hx << ")";
    EXPECT_EQ(sqrt.call<uint16_t>(x), float_to_half_bits(::sqrtf(hx))) << "sqrt(" << hx << ")";
  }
}

TEST(LowerMath, Float16NextafterStepsOneHalfUlp) {
  Jit next(intrinsic_module(IntrinsicOp::Nextafter, DType::Float16, 2));
  EXPECT_EQ(next.call<uint16_t>(uint16_t{0x3C00}, float_to_half_bits(2.0f)), 0x3C01);
  EXPECT_EQ(next.call<uint16_t>(uint16_t{0x3C00}, uint16_t{0x0000}), 0x3BFF);
  EXPECT_EQ(next.call<uint16_t>(uint16_t{0x0000}, float_to_half_bits(-1.0f)), 0x8001);
  EXPECT_EQ(next.call<uint16_t>(float_to_half_bits(-1.0f), float_to_half_bits(-2.0f)), 0xBC01);
}

}  // namespace
}  // namespace ufjit::codegen::testing
