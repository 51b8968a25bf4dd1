// Complex arithmetic and cmath on the CPU, against std::complex (glibc's
// complex functions) and values known from CPython.
#include <cmath>
#include <complex>
#include <limits>

#include "codegen_lower_jit.h"

namespace ufjit::codegen::testing {
namespace {

using ir::IntrinsicOp;
using C128 = std::complex<double>;
using C64 = std::complex<float>;

ir::Module complex_intrinsic(IntrinsicOp op, DType t, DType result, int arity = 1) {
  std::vector<DType> params(static_cast<std::size_t>(arity), t);
  return expr_module(params, [&](const std::vector<ir::Expr> &p) { return ir::Intrinsic::make(op, scalar(result), p); });
}

ir::Module complex_binary(ir::BinaryOpcode op, DType t) {
  return expr_module({t, t}, [&](const std::vector<ir::Expr> &p) { return ir::Binary::make(op, p[0], p[1]); });
}

/// |actual - expected| <= tolerance * max(|expected|, tiny), norm-wise.
template <typename T>
::testing::AssertionResult close(std::complex<T> actual, std::complex<T> expected, double tolerance) {
  double error = std::abs(std::complex<double>(actual) - std::complex<double>(expected));
  double scale = std::max(std::abs(std::complex<double>(expected)), 1e-300);
  if (error <= tolerance * scale) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "actual " << actual << ", expected " << expected << ", relative error "
                                       << error / scale;
}

TEST(LowerComplex, ArithmeticMatchesStdComplex) {
  Jit add(complex_binary(ir::BinaryOpcode::Add, DType::Complex128));
  Jit sub(complex_binary(ir::BinaryOpcode::Sub, DType::Complex128));
  Jit mul(complex_binary(ir::BinaryOpcode::Mul, DType::Complex128));
  Jit div(complex_binary(ir::BinaryOpcode::Div, DType::Complex128));
  const C128 values[] = {{1.0, 2.0}, {3.0, -4.0}, {-0.5, 0.25}, {1e200, 1e200}, {0.0, 1.0}, {7.0, 0.0}};
  for (C128 a : values) {
    for (C128 b : values) {
      EXPECT_EQ(add.call<C128>(a, b), a + b);
      EXPECT_EQ(sub.call<C128>(a, b), a - b);
      if (std::abs(a) < 1e100 && std::abs(b) < 1e100) {
        EXPECT_TRUE(close(mul.call<C128>(a, b), a * b, 1e-15)) << a << " * " << b;
      }
      EXPECT_TRUE(close(div.call<C128>(a, b), a / b, 4e-16)) << a << " / " << b;
    }
  }
  // Values from CPython.
  EXPECT_EQ(div.call<C128>(C128(1, 2), C128(3, 4)), C128(0.44, 0.08));
  // Smith's method does not overflow where the naive formula would.
  EXPECT_TRUE(close(div.call<C128>(C128(1e300, 1e300), C128(1e300, 1e300)), C128(1.0, 0.0), 1e-15));
}

TEST(LowerComplex, DivisionKeepsCPythonSignsOfZero) {
  Jit div(complex_binary(ir::BinaryOpcode::Div, DType::Complex128));
  // CPython: 0j / 1j == 0j with both parts +0.0; 0j / -1 == (-0+0j).
  C128 r = div.call<C128>(C128(0.0, 0.0), C128(0.0, 1.0));
  EXPECT_FALSE(std::signbit(r.real()));
  EXPECT_FALSE(std::signbit(r.imag())) << "0j / 1j has imaginary part +0.0 in CPython";
  r = div.call<C128>(C128(0.0, 0.0), C128(-1.0, 0.0));
  EXPECT_TRUE(std::signbit(r.real())) << "0j / -1 has real part -0.0 in CPython";
}

TEST(LowerComplex, DivisionByZeroGivesInfinityLikeNumPy) {
  Jit div(complex_binary(ir::BinaryOpcode::Div, DType::Complex128));
  C128 r = div.call<C128>(C128(1, 0), C128(0, 0));
  EXPECT_EQ(r.real(), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(r.imag()));
}

TEST(LowerComplex, PowUsesRepeatedSquaringForSmallIntegralExponents) {
  Jit pow(complex_intrinsic(IntrinsicOp::CPow, DType::Complex128, DType::Complex128, 2));
  // CPython: (1+1j)**2 == 2j exactly; (1+1j)**-2 == -0.5j.
  EXPECT_EQ(pow.call<C128>(C128(1, 1), C128(2, 0)), C128(0, 2));
  EXPECT_EQ(pow.call<C128>(C128(1, 1), C128(-2, 0)), C128(0, -0.5));
  EXPECT_EQ(pow.call<C128>(C128(3, -2), C128(0, 0)), C128(1, 0));
  EXPECT_EQ(pow.call<C128>(C128(0, 0), C128(2.5, 0)), C128(0, 0));
  // 1j ** 1j == exp(-pi/2); (2+0j) ** 0.5 == sqrt(2).
  EXPECT_TRUE(close(pow.call<C128>(C128(0, 1), C128(0, 1)), C128(std::exp(-M_PI / 2), 0), 1e-15));
  EXPECT_TRUE(close(pow.call<C128>(C128(2, 0), C128(0.5, 0)), C128(std::sqrt(2.0), 0), 1e-15));
  EXPECT_TRUE(close(pow.call<C128>(C128(1.5, -0.5), C128(0.3, 1.2)), std::pow(C128(1.5, -0.5), C128(0.3, 1.2)), 1e-14));
}

struct CmathFn {
  IntrinsicOp op;
  C128 (*reference)(const C128 &);
  C64 (*reference32)(const C64 &);
};

template <typename T>
std::complex<T> log10_of(const std::complex<T> &z) {
  return std::log10(z);
}

const CmathFn kFunctions[] = {
    {IntrinsicOp::CExp, std::exp<double>, std::exp<float>},
    {IntrinsicOp::CLog, std::log<double>, std::log<float>},
    {IntrinsicOp::CLog10, log10_of<double>, log10_of<float>},
    {IntrinsicOp::CSqrt, std::sqrt<double>, std::sqrt<float>},
    {IntrinsicOp::CSin, std::sin<double>, std::sin<float>},
    {IntrinsicOp::CCos, std::cos<double>, std::cos<float>},
    {IntrinsicOp::CTan, std::tan<double>, std::tan<float>},
    {IntrinsicOp::CAsin, std::asin<double>, std::asin<float>},
    {IntrinsicOp::CAcos, std::acos<double>, std::acos<float>},
    {IntrinsicOp::CAtan, std::atan<double>, std::atan<float>},
    {IntrinsicOp::CSinh, std::sinh<double>, std::sinh<float>},
    {IntrinsicOp::CCosh, std::cosh<double>, std::cosh<float>},
    {IntrinsicOp::CTanh, std::tanh<double>, std::tanh<float>},
    {IntrinsicOp::CAsinh, std::asinh<double>, std::asinh<float>},
    {IntrinsicOp::CAcosh, std::acosh<double>, std::acosh<float>},
    {IntrinsicOp::CAtanh, std::atanh<double>, std::atanh<float>},
};

const C128 kPoints[] = {{0.5, 0.3},  {-1.5, 2.0}, {3.0, -0.5}, {-0.2, -4.0}, {1.0, 0.0},
                        {2.0, 0.0},  {-2.0, 0.0}, {0.0, 2.0},  {0.0, -0.0}, {1e-310, 1e-310},
                        {25.0, 1.0}, {1e300, 2e300}};

TEST(LowerComplex, CmathFunctionsMatchStdComplex) {
  for (const CmathFn &fn : kFunctions) {
    Jit f64(complex_intrinsic(fn.op, DType::Complex128, DType::Complex128));
    for (C128 z : kPoints) {
      C128 expected = fn.reference(z);
      if (!std::isfinite(expected.real()) || !std::isfinite(expected.imag())) {
        continue;  // overflowing results: special values are documented as not matched
      }
      EXPECT_TRUE(close(f64.call<C128>(z), expected, 1e-14)) << ir::intrinsic_name(fn.op) << z;
    }
  }
}

TEST(LowerComplex, Complex64CmathFunctionsMatchStdComplexFloat) {
  const C64 points[] = {{0.5f, 0.3f}, {-1.5f, 2.0f}, {3.0f, -0.5f}, {-0.2f, -4.0f}, {2.0f, 0.0f}, {0.0f, 2.0f}};
  for (const CmathFn &fn : kFunctions) {
    Jit f32(complex_intrinsic(fn.op, DType::Complex64, DType::Complex64));
    for (C64 z : points) {
      C64 expected = fn.reference32(z);
      EXPECT_TRUE(close(f32.call<C64>(z), expected, 5e-6)) << ir::intrinsic_name(fn.op) << z;
    }
  }
}

TEST(LowerComplex, BranchCutsKeepTheSignOfZero) {
  Jit sqrt(complex_intrinsic(IntrinsicOp::CSqrt, DType::Complex128, DType::Complex128));
  EXPECT_EQ(sqrt.call<C128>(C128(-4.0, 0.0)), C128(0.0, 2.0));
  C128 below = sqrt.call<C128>(C128(-4.0, -0.0));
  EXPECT_EQ(below, C128(0.0, -2.0));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sqrt.call<C128>(C128(-3.0, -inf)), C128(inf, -inf));
  Jit sinh(complex_intrinsic(IntrinsicOp::CSinh, DType::Complex128, DType::Complex128));
  EXPECT_EQ(sinh.call<C128>(C128(inf, 0.0)), C128(inf, 0.0));
  Jit log(complex_intrinsic(IntrinsicOp::CLog, DType::Complex128, DType::Complex128));
  EXPECT_EQ(log.call<C128>(C128(-1.0, 0.0)), C128(0.0, M_PI));
  EXPECT_EQ(log.call<C128>(C128(-1.0, -0.0)), C128(0.0, -M_PI));
  Jit exp(complex_intrinsic(IntrinsicOp::CExp, DType::Complex128, DType::Complex128));
  C128 e = exp.call<C128>(C128(std::numeric_limits<double>::infinity(), 0.0));
  EXPECT_EQ(e, C128(std::numeric_limits<double>::infinity(), 0.0));
}

/// Whether `got` is within `ulps` units in the last place of `want`
/// (computed in long double).
template <typename T>
bool within_ulps(T got, long double want, int ulps) {
  const T rounded = static_cast<T>(want);
  if (std::isinf(rounded)) return got == rounded;
  const long double ulp =
      std::fabs(static_cast<long double>(std::nextafter(rounded, T(2) * rounded)) - rounded);
  return std::fabs(static_cast<long double>(got) - want) <= ulps * ulp;
}

TEST(LowerComplex, ExpSinhCoshOfAHugeRealPartKeepAFinitePartFinite) {
  // e^800 overflows, e^800 * sin(1e-300) = 2.7e47 does not (C's cexp, and
  // NumPy, give it); multiplying e^800 in first gave inf + inf j.
  const double inf = std::numeric_limits<double>::infinity();
  const long double e800 = std::exp(800.0L);
  const long double s = std::sin(1e-300L);
  Jit exp(complex_intrinsic(IntrinsicOp::CExp, DType::Complex128, DType::Complex128));
  Jit sinh(complex_intrinsic(IntrinsicOp::CSinh, DType::Complex128, DType::Complex128));
  Jit cosh(complex_intrinsic(IntrinsicOp::CCosh, DType::Complex128, DType::Complex128));
  const C128 e = exp.call<C128>(C128(800.0, 1e-300));
  EXPECT_EQ(e.real(), inf);
  EXPECT_TRUE(within_ulps(e.imag(), e800 * s, 4)) << e;
  const C128 sh = sinh.call<C128>(C128(-800.0, 1e-300));
  EXPECT_EQ(sh.real(), -inf);
  EXPECT_TRUE(within_ulps(sh.imag(), e800 / 2 * s, 4)) << sh;
  const C128 ch = cosh.call<C128>(C128(-800.0, 1e-300));
  EXPECT_EQ(ch.real(), inf);
  EXPECT_TRUE(within_ulps(ch.imag(), -e800 / 2 * s, 4)) << ch;
  // Below the overflow, the same values as before within 4 ulps.
  const C128 near = exp.call<C128>(C128(709.5, 1.2));
  EXPECT_TRUE(within_ulps(near.real(), std::exp(709.5L) * std::cos(1.2L), 4)) << near;
  EXPECT_TRUE(within_ulps(near.imag(), std::exp(709.5L) * std::sin(1.2L), 4)) << near;
  const C128 both = cosh.call<C128>(C128(709.5, 1.2));
  EXPECT_TRUE(within_ulps(both.real(), std::cosh(709.5L) * std::cos(1.2L), 4)) << both;
  EXPECT_TRUE(within_ulps(both.imag(), std::sinh(709.5L) * std::sin(1.2L), 4)) << both;
  // complex64: e^100 overflows float32, e^100 * 1e-30 does not.
  Jit exp32(complex_intrinsic(IntrinsicOp::CExp, DType::Complex64, DType::Complex64));
  const C64 f = exp32.call<C64>(C64(100.0f, 1e-30f));
  EXPECT_EQ(f.real(), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(within_ulps(f.imag(), std::exp(100.0L) * std::sin(static_cast<long double>(1e-30f)), 4)) << f;
}

TEST(LowerComplex, PartsAbsPhaseAndConstruction) {
  Jit abs(complex_intrinsic(IntrinsicOp::CAbs, DType::Complex128, DType::Float64));
  Jit phase(complex_intrinsic(IntrinsicOp::Phase, DType::Complex128, DType::Float64));
  Jit real(complex_intrinsic(IntrinsicOp::Real, DType::Complex64, DType::Float32));
  Jit imag(complex_intrinsic(IntrinsicOp::Imag, DType::Complex64, DType::Float32));
  Jit conj(complex_intrinsic(IntrinsicOp::Conj, DType::Complex128, DType::Complex128));
  Jit make(expr_module({DType::Float64, DType::Float64}, [](const std::vector<ir::Expr> &p) {
    return ir::Intrinsic::make(IntrinsicOp::MakeComplex, scalar(DType::Complex128), p);
  }));
  EXPECT_EQ(abs.call<double>(C128(3, 4)), 5.0);
  EXPECT_EQ(abs.call<double>(C128(1e300, 1e300)), std::hypot(1e300, 1e300));
  EXPECT_EQ(phase.call<double>(C128(-1, 0)), M_PI);
  EXPECT_EQ(real.call<float>(C64(1.5f, -2.5f)), 1.5f);
  EXPECT_EQ(imag.call<float>(C64(1.5f, -2.5f)), -2.5f);
  EXPECT_EQ(conj.call<C128>(C128(1, 2)), C128(1, -2));
  EXPECT_EQ(make.call<C128>(3.0, -4.0), C128(3, -4));
}

TEST(LowerComplex, ComparisonsAndCasts) {
  Jit eq(expr_module({DType::Complex128, DType::Complex128}, [](const std::vector<ir::Expr> &p) {
    return ir::Compare::make(ir::CompareOpcode::Eq, p[0], p[1]);
  }));
  Jit ne(expr_module({DType::Complex128, DType::Complex128}, [](const std::vector<ir::Expr> &p) {
    return ir::Compare::make(ir::CompareOpcode::Ne, p[0], p[1]);
  }));
  EXPECT_TRUE(eq.call<bool>(C128(1, 2), C128(1, 2)));
  EXPECT_FALSE(eq.call<bool>(C128(1, 2), C128(1, 3)));
  EXPECT_TRUE(ne.call<bool>(C128(NAN, 0), C128(NAN, 0)));
  auto cast = [](DType from, DType to) {
    return expr_module({from}, [to](const std::vector<ir::Expr> &p) { return ir::Cast::make(to, p[0]); });
  };
  EXPECT_EQ(Jit(cast(DType::Complex128, DType::Float64)).call<double>(C128(2.5, 9)), 2.5);
  EXPECT_EQ(Jit(cast(DType::Complex128, DType::Complex64)).call<C64>(C128(0.1, 0.2)), C64(0.1f, 0.2f));
  EXPECT_EQ(Jit(cast(DType::Float32, DType::Complex128)).call<C128>(0.5f), C128(0.5, 0));
  EXPECT_EQ(Jit(cast(DType::Int32, DType::Complex64)).call<C64>(int32_t{-3}), C64(-3, 0));
  EXPECT_TRUE(Jit(cast(DType::Complex64, DType::Bool)).call<bool>(C64(0, 1)));
  EXPECT_FALSE(Jit(cast(DType::Complex64, DType::Bool)).call<bool>(C64(0, -0.0f)));
  EXPECT_EQ(Jit(cast(DType::Complex128, DType::Int64)).call<int64_t>(C128(-7.9, 3)), -7);
}

TEST(LowerComplex, ClassificationLooksAtBothParts) {
  Jit isnan(complex_intrinsic(IntrinsicOp::IsNan, DType::Complex128, DType::Bool));
  Jit isinf(complex_intrinsic(IntrinsicOp::IsInf, DType::Complex128, DType::Bool));
  Jit isfinite(complex_intrinsic(IntrinsicOp::IsFinite, DType::Complex128, DType::Bool));
  EXPECT_TRUE(isnan.call<bool>(C128(0, NAN)));
  EXPECT_TRUE(isinf.call<bool>(C128(INFINITY, 0)));
  EXPECT_FALSE(isfinite.call<bool>(C128(1, INFINITY)));
  EXPECT_TRUE(isfinite.call<bool>(C128(1, 2)));
}

}  // namespace
}  // namespace ufjit::codegen::testing
