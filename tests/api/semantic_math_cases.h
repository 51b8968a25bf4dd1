// The semantic suite, part 2: every math and cmath function of LANGUAGE.md
// section 6 over its domain, edge values included (0, -0, inf, nan, domain
// errors -> nan, poles -> inf), in float64 and float32. References come from
// <cmath>/<complex> in float64 and are rounded to the result type.
// Included by semantic_cases.h.
#pragma once

#include <cctype>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

namespace semantic {

namespace detail {

using RealFn = double (*)(double);
using RealFn2 = double (*)(double, double);

/// Tolerances (ulps of the result type) per function: float64 / float32.
/// Exact functions are 0; the C library is within 1-2 ulp for the rest, and
/// libdevice documents up to a few ulps for the special functions.
struct Tolerance {
  double f64;
  double f32;
};

inline std::string cap(const std::string &s) {
  std::string r = s;
  r[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(r[0])));
  return r;
}

/// Adds Math<Name>Float64 and Math<Name>Float32 for a one-argument function.
inline void add_unary(std::vector<Case> &cases, const std::string &py_name, RealFn fn, const std::vector<double> &inputs,
                      Tolerance tol, bool signed_zero = false) {
  const std::string src = "import math\n\ndef f(x):\n    return math." + py_name + "(x)\n";
  std::vector<Row> r64;
  std::vector<Row> r32;
  for (double x : inputs) {
    r64.push_back({{f64(x)}, f64(fn(x))});
    const double xf = static_cast<double>(static_cast<float>(x));
    r32.push_back({{f32(xf)}, f32(fn(xf))});
  }
  cases.push_back(make("Math" + cap(py_name) + "Float64", src, "float64(float64)", r64, tol.f64, signed_zero));
  cases.push_back(make("Math" + cap(py_name) + "Float32", src, "float32(float32)", r32, tol.f32, signed_zero));
}

inline void add_binary(std::vector<Case> &cases, const std::string &py_name, RealFn2 fn,
                       const std::vector<std::pair<double, double>> &inputs, Tolerance tol, bool signed_zero = false) {
  const std::string src = "import math\n\ndef f(x, y):\n    return math." + py_name + "(x, y)\n";
  std::vector<Row> r64;
  std::vector<Row> r32;
  for (auto [x, y] : inputs) {
    r64.push_back({{f64(x), f64(y)}, f64(fn(x, y))});
    const double xf = static_cast<double>(static_cast<float>(x));
    const double yf = static_cast<double>(static_cast<float>(y));
    r32.push_back({{f32(xf), f32(yf)}, f32(fn(xf, yf))});
  }
  cases.push_back(make("Math" + cap(py_name) + "Float64", src, "float64(float64, float64)", r64, tol.f64, signed_zero));
  cases.push_back(make("Math" + cap(py_name) + "Float32", src, "float32(float32, float32)", r32, tol.f32, signed_zero));
}

inline double ref_acos(double x) { return std::acos(x); }
inline double ref_acosh(double x) { return std::acosh(x); }
inline double ref_asin(double x) { return std::asin(x); }
inline double ref_asinh(double x) { return std::asinh(x); }
inline double ref_atan(double x) { return std::atan(x); }
inline double ref_atanh(double x) { return std::atanh(x); }
inline double ref_cbrt(double x) { return std::cbrt(x); }
inline double ref_ceil(double x) { return std::ceil(x); }
inline double ref_cos(double x) { return std::cos(x); }
inline double ref_cosh(double x) { return std::cosh(x); }
inline double ref_erf(double x) { return std::erf(x); }
inline double ref_erfc(double x) { return std::erfc(x); }
inline double ref_exp(double x) { return std::exp(x); }
inline double ref_exp2(double x) { return std::exp2(x); }
inline double ref_expm1(double x) { return std::expm1(x); }
inline double ref_fabs(double x) { return std::fabs(x); }
inline double ref_floor(double x) { return std::floor(x); }
inline double ref_gamma(double x) { return std::tgamma(x); }
inline double ref_lgamma(double x) { return std::lgamma(x); }
inline double ref_log(double x) { return std::log(x); }
inline double ref_log10(double x) { return std::log10(x); }
inline double ref_log1p(double x) { return std::log1p(x); }
inline double ref_log2(double x) { return std::log2(x); }
inline double ref_sin(double x) { return std::sin(x); }
inline double ref_sinh(double x) { return std::sinh(x); }
inline double ref_sqrt(double x) { return std::sqrt(x); }
inline double ref_tan(double x) { return std::tan(x); }
inline double ref_tanh(double x) { return std::tanh(x); }
inline double ref_trunc(double x) { return std::trunc(x); }
inline double ref_degrees(double x) { return x * (180.0 / M_PI); }
inline double ref_radians(double x) { return x * (M_PI / 180.0); }
inline double ref_atan2(double y, double x) { return std::atan2(y, x); }
inline double ref_copysign(double x, double y) { return std::copysign(x, y); }
inline double ref_fmod(double x, double y) { return std::fmod(x, y); }
inline double ref_hypot(double x, double y) { return std::hypot(x, y); }
inline double ref_pow(double x, double y) { return std::pow(x, y); }
inline double ref_remainder(double x, double y) { return std::remainder(x, y); }

}  // namespace detail

inline std::vector<Case> math_cases() {
  using namespace detail;
  std::vector<Case> cases;
  const double inf = kInf;
  const double nan = kNaN;
  const Tolerance exact{0, 0};
  const Tolerance usual{2, 2};
  const Tolerance special{4, 4};

  add_unary(cases, "acos", ref_acos, {-1, -0.5, 0, -0.0, 0.3, 1, 1.5, -inf, nan}, usual);
  add_unary(cases, "acosh", ref_acosh, {1, 1.5, 10, 1e30, 0.5, -1, inf, nan}, special);
  add_unary(cases, "asin", ref_asin, {-1, -0.5, 0, -0.0, 0.3, 1, 2, inf, nan}, usual);
  add_unary(cases, "asinh", ref_asinh, {-2, -0.0, 0, 0.5, 1e30, -inf, inf, nan}, special);
  add_unary(cases, "atan", ref_atan, {-1e30, -1, 0, -0.0, 0.5, 1, inf, -inf, nan}, usual);
  add_unary(cases, "atanh", ref_atanh, {-0.5, 0, -0.0, 0.9, 1, -1, 2, nan}, special);
  add_unary(cases, "cbrt", ref_cbrt, {-27, -0.0, 0, 2, 1e-30, inf, -inf, nan}, usual);
  add_unary(cases, "ceil", ref_ceil, {-1.5, -0.5, 0, 1.2, 2, 1e30, inf, -inf, nan}, exact, true);
  add_unary(cases, "cos", ref_cos, {0, -0.0, 1, -2.5, 100, 1e6, inf, nan}, usual);
  add_unary(cases, "cosh", ref_cosh, {0, 1, -2, 80, 710, 711, -inf, nan}, usual);
  add_unary(cases, "erf", ref_erf, {0, -0.0, 0.5, -1, 3, 6, inf, -inf, nan}, usual);
  add_unary(cases, "erfc", ref_erfc, {0, 0.5, -1, 3, 9, -inf, inf, nan}, special);
  add_unary(cases, "exp", ref_exp, {0, 1, -1, 80, -80, 709, 710, -inf, inf, nan}, usual);
  add_unary(cases, "exp2", ref_exp2, {0, 1, -1, 0.5, 100, 1023, 1024, -inf, nan}, usual);
  add_unary(cases, "expm1", ref_expm1, {0, -0.0, 1e-10, 1, -1, 50, -inf, inf, nan}, usual);
  add_unary(cases, "fabs", ref_fabs, {-1.5, -0.0, 0, 3, inf, -inf, nan}, exact, true);
  add_unary(cases, "floor", ref_floor, {-1.5, -0.5, 0.5, -0.0, 2, 1e30, inf, nan}, exact, true);
  add_unary(cases, "gamma", ref_gamma, {0.5, 1, 5, 10.5, 30, 171, 172, -0.5, -2.5, nan, inf}, {10, 8});
  add_unary(cases, "lgamma", ref_lgamma, {0.5, 5, 10.5, 100, 1e10, -0.5, inf, nan}, {6, 6});
  add_unary(cases, "log", ref_log, {1, 0.5, 10, 1e-30, 0, -0.0, -1, inf, -inf, nan}, usual);
  add_unary(cases, "log10", ref_log10, {1, 10, 1000, 0.5, 3, 0, -1, inf, nan}, usual);
  add_unary(cases, "log1p", ref_log1p, {0, -0.0, 1e-10, 1, -0.5, -1, -2, inf, nan}, usual);
  add_unary(cases, "log2", ref_log2, {1, 2, 1024, 0.5, 3, 0, -1, inf, nan}, usual);
  add_unary(cases, "sin", ref_sin, {0, -0.0, 1, -2.5, 100, 1e6, inf, nan}, usual);
  add_unary(cases, "sinh", ref_sinh, {0, -0.0, 1, -2, 80, 710, -711, nan}, usual);
  add_unary(cases, "sqrt", ref_sqrt, {0, -0.0, 2, 4, 1e-30, 1e30, -1, -inf, inf, nan}, exact);
  add_unary(cases, "tan", ref_tan, {0, -0.0, 1, -2.5, 1.5, 100, inf, nan}, usual);
  add_unary(cases, "tanh", ref_tanh, {0, -0.0, 0.5, -3, 20, inf, -inf, nan}, usual);
  add_unary(cases, "trunc", ref_trunc, {-1.5, -0.5, 0.5, 2.7, 1e30, inf, nan}, exact, true);
  add_unary(cases, "degrees", ref_degrees, {0, 1, -M_PI, 1e300, inf, nan}, {1, 1});
  add_unary(cases, "radians", ref_radians, {0, 180, -90, 1e300, inf, nan}, {1, 1});

  add_binary(cases, "atan2", ref_atan2,
             {{1, 1}, {1, -1}, {-1, -1}, {0, -0.0}, {-0.0, -1}, {0, 0}, {inf, inf}, {-inf, 1}, {nan, 1}}, usual);
  add_binary(cases, "copysign", ref_copysign, {{1, -0.0}, {-2, 3}, {0, -1}, {inf, -1}, {-0.0, 1}}, exact, true);
  add_binary(cases, "fmod", ref_fmod, {{7.5, 2}, {-7.5, 2}, {7.5, -2}, {1, 0}, {inf, 1}, {1, inf}, {-0.0, 1}}, exact,
             true);
  add_binary(cases, "hypot", ref_hypot, {{3, 4}, {1e30, 1e30}, {inf, nan}, {nan, 1}, {-3, 0}, {1e-30, 1e-30}}, {1, 1});
  add_binary(cases, "pow", ref_pow, {{2, 0.5}, {-8, 1.0 / 3.0}, {0, -1}, {2, 10}, {-2, 3}, {nan, 0}, {1, nan}, {10, -3}},
             usual);
  add_binary(cases, "remainder", ref_remainder, {{7.5, 2}, {5, 2}, {7, 2}, {1, 0}, {-7.5, 2}, {inf, 1}}, exact);
  {
    std::vector<Row> rows;
    for (auto [x, y] : std::vector<std::pair<double, double>>{{1, 2}, {1, 0}, {0, 1}, {0, -1}, {inf, 0}, {nan, 1}}) {
      rows.push_back({{f64(x), f64(y)}, f64(std::nextafter(x, y))});
    }
    cases.push_back(make("MathNextafterFloat64", "import math\n\ndef f(x, y):\n    return math.nextafter(x, y)\n",
                         "float64(float64, float64)", rows));
  }
  {
    std::vector<Row> rows;
    for (auto [x, n] : std::vector<std::pair<double, int>>{{1, 10}, {1.5, -1}, {1, 1024}, {1, -1074}, {-3, 0}, {nan, 1}}) {
      rows.push_back({{f64(x), i32(n)}, f64(std::ldexp(x, n))});
    }
    cases.push_back(make("MathLdexpFloat64", "import math\n\ndef f(x, n):\n    return math.ldexp(x, n)\n",
                         "float64(float64, int32)", rows));
  }
  {
    std::vector<Row> rows;
    for (auto [a, b, c] : std::vector<std::tuple<double, double, double>>{
             {0.1, 10, -1}, {2, 3, 4}, {1e308, 10, -inf}, {1 + 0x1p-52, 1 - 0x1p-52, -1}}) {
      rows.push_back({{f64(a), f64(b), f64(c)}, f64(std::fma(a, b, c))});
    }
    cases.push_back(make("MathFmaIsFused", "import math\n\ndef f(a, b, c):\n    return math.fma(a, b, c)\n",
                         "float64(float64, float64, float64)", rows));
  }
  {
    std::vector<Row> mantissa;
    std::vector<Row> exponent;
    for (double x : {8.0, 0.3, -5.0, 0.0, 1e-310}) {
      int e = 0;
      const double m = std::frexp(x, &e);
      mantissa.push_back({{f64(x)}, f64(m)});
      exponent.push_back({{f64(x)}, i64(e)});
    }
    cases.push_back(make("MathFrexpMantissa", "import math\n\ndef f(x):\n    return math.frexp(x)[0]\n",
                         "float64(float64)", mantissa));
    cases.push_back(make("MathFrexpExponent", "import math\n\ndef f(x):\n    m, e = math.frexp(x)\n    return e\n",
                         "int64(float64)", exponent));
  }
  {
    std::vector<Row> frac;
    std::vector<Row> whole;
    for (double x : {2.5, -2.5, 3.0, 0.75, -0.0}) {
      double w = 0;
      const double fr = std::modf(x, &w);
      frac.push_back({{f64(x)}, f64(fr)});
      whole.push_back({{f64(x)}, f64(w)});
    }
    cases.push_back(make("MathModfFraction", "import math\n\ndef f(x):\n    return math.modf(x)[0]\n",
                         "float64(float64)", frac, 0, true));
    cases.push_back(make("MathModfIntegerPart", "import math\n\ndef f(x):\n    return math.modf(x)[1]\n",
                         "float64(float64)", whole, 0, true));
  }
  {
    const std::string src =
        "import math\n\ndef f(x):\n    return math.isnan(x) * 1 + math.isinf(x) * 2 + math.isfinite(x) * 4\n";
    std::vector<Row> r64;
    std::vector<Row> r32;
    for (double x : {0.0, -1.5, inf, -inf, nan, 1e-310}) {
      const int64_t code = std::isnan(x) * 1 + std::isinf(x) * 2 + std::isfinite(x) * 4;
      r64.push_back({{f64(x)}, i64(code)});
      r32.push_back({{f32(x)}, i64(std::isnan(x) * 1 + std::isinf(x) * 2 + std::isfinite(static_cast<float>(x)) * 4)});
    }
    cases.push_back(make("MathClassificationFloat64", src, "int64(float64)", r64));
    cases.push_back(make("MathClassificationFloat32", src, "int64(float32)", r32));
  }
  cases.push_back(make("MathConstants", "import math\n\ndef f(x):\n    return math.pi * x + math.e + math.tau\n",
                       "float64(float64)", {{{f64(2)}, f64(M_PI * 2 + M_E + 2 * M_PI)}}, 1));
  cases.push_back(make("MathInfAndNanConstants",
                       "import math\n\ndef f(x):\n    return math.isinf(math.inf * x) and math.isnan(math.nan + x)\n",
                       "bool(float64)", {{{f64(1)}, boolean(true)}}));
  cases.push_back(make("BareMathNamesFromImport", "from math import exp, sqrt\n\ndef f(x):\n    return exp(x) + sqrt(x)\n",
                       "float64(float64)", {{{f64(2)}, f64(std::exp(2.0) + std::sqrt(2.0))}}, 2));
  cases.push_back(make("MathOfIntArgumentIsFloat64", "import math\n\ndef f(n):\n    return math.sqrt(n)\n",
                       "float64(int32)", {{{i32(4)}, f64(2)}, {{i32(2)}, f64(std::sqrt(2.0))}}));
  cases.push_back(make("FloorOfFloat32StaysFloat32", "import math\n\ndef f(x):\n    return math.floor(x) + 0.1\n",
                       "float64(float32)", {{{f32(2.5)}, f64(static_cast<double>(2.0f + 0.1f))}}));
  cases.push_back(make("Float16MathComputesInFloat32", "import math\n\ndef f(x):\n    return math.sqrt(x)\n",
                       "float16(float16)",
                       {{{f16(2)}, f16(static_cast<double>(std::sqrt(2.0f)))}, {{f16(0.3)}, f16(static_cast<double>(std::sqrt(static_cast<float>(round_half(0.3)))))}}));
  return cases;
}

inline std::vector<Case> cmath_cases() {
  using namespace detail;
  using C = std::complex<double>;
  std::vector<Case> cases;
  // Points off every branch cut (the cuts lie on the real or imaginary axis).
  const std::vector<C> points = {{0.5, 0.5}, {-1.5, 0.3}, {0.2, -2}, {-0.7, -0.8}, {3, 1e-3}};
  struct Fn {
    const char *name;
    C (*fn)(const C &);
    double ulps;
  };
  const std::vector<Fn> fns = {
      {"exp", [](const C &z) { return std::exp(z); }, 4},     {"log", [](const C &z) { return std::log(z); }, 4},
      {"log10", [](const C &z) { return std::log10(z); }, 4}, {"sqrt", [](const C &z) { return std::sqrt(z); }, 4},
      {"sin", [](const C &z) { return std::sin(z); }, 4},     {"cos", [](const C &z) { return std::cos(z); }, 4},
      {"tan", [](const C &z) { return std::tan(z); }, 8},     {"asin", [](const C &z) { return std::asin(z); }, 8},
      {"acos", [](const C &z) { return std::acos(z); }, 8},   {"atan", [](const C &z) { return std::atan(z); }, 8},
      {"sinh", [](const C &z) { return std::sinh(z); }, 4},   {"cosh", [](const C &z) { return std::cosh(z); }, 4},
      {"tanh", [](const C &z) { return std::tanh(z); }, 8},   {"asinh", [](const C &z) { return std::asinh(z); }, 8},
      {"acosh", [](const C &z) { return std::acosh(z); }, 8}, {"atanh", [](const C &z) { return std::atanh(z); }, 8},
  };
  for (const Fn &fn : fns) {
    const std::string src = "import cmath\n\ndef f(z):\n    return cmath." + std::string(fn.name) + "(z)\n";
    std::vector<Row> r128;
    std::vector<Row> r64;
    for (const C &z : points) {
      r128.push_back({{c128(z)}, c128(fn.fn(z))});
      const C zf(static_cast<float>(z.real()), static_cast<float>(z.imag()));
      r64.push_back({{c64(zf)}, c64(fn.fn(zf))});
    }
    cases.push_back(make("Cmath" + cap(fn.name) + "Complex128", src, "complex128(complex128)", r128, fn.ulps));
    cases.push_back(make("Cmath" + cap(fn.name) + "Complex64", src, "complex64(complex64)", r64, fn.ulps));
  }
  {
    std::vector<Row> phase;
    std::vector<Row> modulus;
    std::vector<Row> angle;
    for (const C &z : std::vector<C>{{1, 1}, {-1, 0.5}, {0, -2}, {-3, -4}}) {
      phase.push_back({{c128(z)}, f64(std::arg(z))});
      modulus.push_back({{c128(z)}, f64(std::abs(z))});
      angle.push_back({{c128(z)}, f64(std::arg(z))});
    }
    cases.push_back(make("CmathPhase", "import cmath\n\ndef f(z):\n    return cmath.phase(z)\n", "float64(complex128)",
                         phase, 2));
    cases.push_back(make("CmathPolarModulus", "import cmath\n\ndef f(z):\n    r, p = cmath.polar(z)\n    return r\n",
                         "float64(complex128)", modulus, 1));
    cases.push_back(make("CmathPolarAngle", "import cmath\n\ndef f(z):\n    return cmath.polar(z)[1]\n",
                         "float64(complex128)", angle, 2));
  }
  {
    std::vector<Row> rows;
    for (auto [r, phi] : std::vector<std::pair<double, double>>{{1, 0}, {2, M_PI / 3}, {0.5, -2}}) {
      rows.push_back({{f64(r), f64(phi)}, c128(std::polar(r, phi))});
    }
    cases.push_back(make("CmathRect", "import cmath\n\ndef f(r, phi):\n    return cmath.rect(r, phi)\n",
                         "complex128(float64, float64)", rows, 2));
  }
  {
    const std::string src =
        "import cmath\n\ndef f(z):\n    return cmath.isnan(z) * 1 + cmath.isinf(z) * 2 + cmath.isfinite(z) * 4\n";
    std::vector<Row> rows;
    for (const C &z : std::vector<C>{{1, 2}, {kNaN, 0}, {0, kInf}, {kInf, kNaN}, {-kInf, 1}}) {
      const bool is_nan = std::isnan(z.real()) || std::isnan(z.imag());
      const bool is_inf = std::isinf(z.real()) || std::isinf(z.imag());
      const bool is_finite = std::isfinite(z.real()) && std::isfinite(z.imag());
      rows.push_back({{c128(z)}, i64(is_nan * 1 + is_inf * 2 + is_finite * 4)});
    }
    cases.push_back(make("CmathClassification", src, "int64(complex128)", rows));
  }
  cases.push_back(make("ImaginaryLiteral", "def f(x):\n    return x * 1j + 2\n", "complex128(float64)",
                       {{{f64(3)}, c128(2, 3)}, {{f64(-0.5)}, c128(2, -0.5)}}));
  cases.push_back(make("CmathConstants", "import cmath\n\ndef f(z):\n    return z + cmath.infj\n", "complex128(complex128)",
                       {{{c128(1, 2)}, c128(1, kInf)}}));
  return cases;
}

}  // namespace semantic
