// The semantic suite, part 3: what Numba kernels call besides math/cmath
// (LANGUAGE.md section 6): NumPy's scalar ufuncs (np.sin, np.maximum, ...),
// cuda.* device intrinsics, cuda.fp16.*, int.bit_count() and helpers with
// explicit signatures. Expected values follow NumPy 1.24 on scalars and
// CUDA's definitions of __popc/__clz/__ffs/__brev, written out by hand
// (checked against Debian's NumPy: np.maximum(-0.0, 0.0) is 0.0, np.sign(nan)
// is nan, ...). Included by semantic_cases.h.
#pragma once

#include <cmath>
#include <complex>
#include <map>
#include <string>
#include <vector>

#include "semantic_complex_special_cases.h"

namespace semantic {

namespace detail {

inline std::string np_source(const std::string &params, const std::string &expr) {
  return "import numpy as np\n\ndef f(" + params + "):\n    return " + expr + "\n";
}

/// NumPy's maximum/minimum (NaN of either operand propagates) and fmax/fmin
/// (a NaN operand is ignored); on ties the second operand is the result.
inline double np_maximum(double a, double b) { return (a > b || std::isnan(a)) ? a : b; }
inline double np_minimum(double a, double b) { return (a < b || std::isnan(a)) ? a : b; }
inline double np_fmax(double a, double b) { return (a > b || std::isnan(b)) ? a : b; }
inline double np_fmin(double a, double b) { return (a < b || std::isnan(b)) ? a : b; }
/// CUDA's bit intrinsics on the bits of a `bits`-wide integer.
inline uint64_t low_bits(int64_t v, int bits) {
  return bits == 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);
}
inline int64_t cuda_popc(int64_t v, int bits) { return __builtin_popcountll(low_bits(v, bits)); }
inline int64_t cuda_clz(int64_t v, int bits) {
  const uint64_t u = low_bits(v, bits);
  return u == 0 ? bits : __builtin_clzll(u) - (64 - bits);
}
inline uint64_t cuda_ffs(int64_t v) { return static_cast<uint64_t>(__builtin_ffsll(v)); }
inline uint64_t cuda_brev(uint64_t v, int bits) {
  uint64_t r = 0;
  for (int k = 0; k < bits; ++k) r |= ((v >> k) & 1) << (bits - 1 - k);
  return r;
}
/// CUDA's __hmax/__hmin: a NaN operand gives the other one.
inline double cuda_hmax(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b); }

/// Numba's round(x, ndigits) (round_ndigits in numba/cpython/numbers.py):
/// float64 arithmetic, 10**n split at 22 digits, x itself when the scaled
/// value overflows, the rounding done in x's type T.
template <typename T>
double numba_round(T xt, int64_t n) {
  const double x = xt;
  if (!std::isfinite(x)) return x;
  double pow1 = 1.0;
  double pow2 = 1.0;
  double y = 0.0;
  if (n >= 0) {
    if (n > 22) {
      pow1 = std::pow(10.0, static_cast<double>(n - 22));
      pow2 = 1e22;
    } else {
      pow1 = std::pow(10.0, static_cast<double>(n));
    }
    y = (x * pow1) * pow2;
    if (std::isinf(y)) return x;
  } else {
    pow1 = std::pow(10.0, static_cast<double>(-n));
    y = x / pow1;
  }
  double z = static_cast<double>(std::nearbyint(static_cast<T>(y)));
  if (std::fabs(y - z) == 0.5) z = 2.0 * static_cast<double>(std::nearbyint(static_cast<T>(y / 2.0)));
  return n >= 0 ? (z / pow2) / pow1 : z * pow1;
}

inline double np_sign(double x) {
  if (x > 0) return 1.0;
  if (x < 0) return -1.0;
  return x == 0 ? 0.0 : x;
}

}  // namespace detail

inline std::vector<Case> numpy_cases() {
  using namespace detail;
  std::vector<Case> cases;
  const std::vector<std::pair<double, double>> minmax_pairs = {
      {1.0, 2.0}, {2.0, 1.0}, {kNaN, 1.0}, {1.0, kNaN}, {kNaN, kNaN}, {-0.0, 0.0}, {0.0, -0.0}, {-kInf, 3.0}};
  struct MinMax {
    const char *name;
    double (*fn)(double, double);
  };
  for (MinMax m : {MinMax{"maximum", np_maximum}, MinMax{"minimum", np_minimum}, MinMax{"fmax", np_fmax},
                   MinMax{"fmin", np_fmin}}) {
    std::vector<Row> r64;
    std::vector<Row> r32;
    for (auto [a, b] : minmax_pairs) {
      r64.push_back({{f64(a), f64(b)}, f64(m.fn(a, b))});
      r32.push_back({{f32(a), f32(b)}, f32(m.fn(a, b))});
    }
    const std::string src = np_source("x, y", std::string("np.") + m.name + "(x, y)");
    cases.push_back(make(std::string("Np_") + m.name + "_Float64", src, "float64(float64, float64)", r64, 0, true));
    cases.push_back(make(std::string("Np_") + m.name + "_Float32", src, "float32(float32, float32)", r32, 0, true));
  }
  cases.push_back(make("Np_maximum_Int32", np_source("x, y", "np.maximum(x, y)"), "int32(int32, int32)",
                       {{{i32(3), i32(-4)}, i32(3)}, {{i32(-3), i32(4)}, i32(4)}, {{i32(kI32Min), i32(kI32Max)}, i32(kI32Max)}}));
  {
    std::vector<Row> r64;
    std::vector<Row> r32;
    for (double x : {3.0, -2.5, 0.0, -0.0, kNaN, kInf, -kInf, 1e-310}) {
      r64.push_back({{f64(x)}, f64(np_sign(x))});
      r32.push_back({{f32(x)}, f32(np_sign(static_cast<float>(x)))});
    }
    cases.push_back(make("Np_sign_Float64KeepsNaNAndGivesPositiveZero", np_source("x", "np.sign(x)"), "float64(float64)",
                         r64, 0, true));
    cases.push_back(make("Np_sign_Float32", np_source("x", "np.sign(x)"), "float32(float32)", r32, 0, true));
  }
  cases.push_back(make("Np_sign_Int8", np_source("x", "np.sign(x)"), "int8(int8)",
                       {{{i8(-128)}, i8(-1)}, {{i8(0)}, i8(0)}, {{i8(7)}, i8(1)}}));
  cases.push_back(make("Np_sign_UInt8", np_source("x", "np.sign(x)"), "uint8(uint8)",
                       {{{u8(0)}, u8(0)}, {{u8(255)}, u8(1)}}));

  // Arithmetic ufuncs: the operators' semantics, on the operands' common type.
  cases.push_back(make("Np_add_Int8Wraps", np_source("x, y", "np.add(x, y)"), "int8(int8, int8)",
                       {{{i8(100), i8(100)}, i8(-56)}, {{i8(-1), i8(2)}, i8(1)}}));
  cases.push_back(make("Np_subtract_multiply_Int16", np_source("x, y", "np.multiply(np.subtract(x, y), y)"),
                       "int16(int16, int16)", {{{i16(5), i16(3)}, i16(6)}, {{i16(-300), i16(300)}, i16(-180000)}}));
  cases.push_back(make("Np_true_divide_OfInt32IsFloat64", np_source("x, y", "np.true_divide(x, y)"),
                       "float64(int32, int32)",
                       {{{i32(1), i32(2)}, f64(0.5)}, {{i32(1), i32(0)}, f64(kInf)}, {{i32(-7), i32(3)}, f64(-7.0 / 3.0)}}));
  cases.push_back(make("Np_divide_Float32", np_source("x, y", "np.divide(x, y)"), "float32(float32, float32)",
                       {{{f32(1), f32(3)}, f32(1.0f / 3.0f)}, {{f32(0), f32(0)}, f32(kNaN)}}));
  {
    std::vector<Row> rows;
    for (auto [a, b] : std::vector<std::pair<int64_t, int64_t>>{{7, 2}, {-7, 2}, {7, -2}, {5, 0}, {kI64Min, -1}}) {
      // int64 arithmetic wraps in a kernel (LANGUAGE.md section 5): so does the
      // expected value (kI64Min // -1 is kI64Min), computed unsigned as C++ has no signed wrap.
      const uint64_t wrapped = static_cast<uint64_t>(py_floordiv(a, b)) * 1000u + static_cast<uint64_t>(py_mod(a, b));
      rows.push_back({{i64(a), i64(b)}, i64(static_cast<int64_t>(wrapped))});
    }
    cases.push_back(make("Np_floor_divide_remainder_Int64", np_source("x, y", "np.floor_divide(x, y) * 1000 + np.remainder(x, y)"),
                         "int64(int64, int64)", rows));
  }
  cases.push_back(make("Np_power_Int64", np_source("x, y", "np.power(x, y)"), "int64(int64, int64)",
                       {{{i64(3), i64(4)}, i64(81)}, {{i64(2), i64(-1)}, i64(0)}, {{i64(-1), i64(-3)}, i64(-1)}}));
  cases.push_back(make("Np_power_Float64", np_source("x, y", "np.power(x, y)"), "float64(float64, float64)",
                       {{{f64(2), f64(0.5)}, f64(std::sqrt(2.0))}, {{f64(-8), f64(1.0 / 3)}, f64(kNaN)}}, 1));
  cases.push_back(make("Np_negative_absolute_Int8", np_source("x", "np.absolute(np.negative(x))"), "int8(int8)",
                       {{{i8(-128)}, i8(-128)}, {{i8(5)}, i8(5)}, {{i8(-5)}, i8(5)}}));
  cases.push_back(make("Np_abs_Complex128IsItsModulus", np_source("z", "np.abs(z)"), "float64(complex128)",
                       {{{c128(3, -4)}, f64(5)}, {{c128(kInf, kNaN)}, f64(kInf)}}, 1));
  cases.push_back(make("Np_square_Int8Wraps", np_source("x", "np.square(x)"), "int8(int8)",
                       {{{i8(16)}, i8(0)}, {{i8(-11)}, i8(121)}}));
  cases.push_back(make("Np_reciprocal_Float32", np_source("x", "np.reciprocal(x)"), "float32(float32)",
                       {{{f32(3)}, f32(1.0f / 3.0f)}, {{f32(-0.0)}, f32(-kInf)}}));
  // NumPy's complex loop (Smith's method on 1 / z), not a complex division:
  // its signs of zero and special values.
  cases.push_back(make("Np_reciprocal_Complex128", np_source("z", "np.reciprocal(z)"),
                       "complex128(complex128)",
                       {{{c128(3, -4)}, c128(0.12, 0.16)},
                        {{c128(kInf, 1)}, c128(0.0, -0.0)},
                        {{c128(0, 0)}, c128(kNaN, kNaN)},
                        {{c128(-0.0, 1)}, c128(-0.0, -1)}},
                       1));

  // Comparisons and logic: bool results, NaN compares false.
  cases.push_back(make("Np_comparisons_Float64", np_source("x, y", "np.greater(x, y) + 2 * np.less_equal(x, y) + 4 * np.equal(x, y) + 8 * np.not_equal(x, y)"),
                       "int64(float64, float64)",
                       {{{f64(2), f64(1)}, i64(1 + 8)}, {{f64(1), f64(1)}, i64(2 + 4)}, {{f64(kNaN), f64(1)}, i64(8)}}));
  cases.push_back(make("Np_logical_Float64", np_source("x, y", "np.logical_and(x, y) + 2 * np.logical_or(x, y) + 4 * np.logical_xor(x, y) + 8 * np.logical_not(x)"),
                       "int64(float64, float64)",
                       {{{f64(0), f64(kNaN)}, i64(2 + 4 + 8)}, {{f64(1), f64(2)}, i64(1 + 2)}, {{f64(0), f64(0)}, i64(8)}}));

  // Float functions: NumPy's loop types; references from <cmath>.
  {
    std::vector<Row> rows;
    for (double x : {0.5, 2.0, 10.0, 1e-8}) rows.push_back({{f64(x)}, f64(std::exp(x) + std::log(x) + std::sqrt(x) + std::sin(x))});
    cases.push_back(make("Np_exp_log_sqrt_sin_Float64", np_source("x", "np.exp(x) + np.log(x) + np.sqrt(x) + np.sin(x)"),
                         "float64(float64)", rows, 4));
  }
  cases.push_back(make("Np_sqrt_log_OfNegativeIsNaN", np_source("x", "np.sqrt(x) + np.log(x)"), "float64(float64)",
                       {{{f64(-1)}, f64(kNaN)}, {{f64(0)}, f64(-kInf)}}));
  cases.push_back(make("Np_sin_OfInt32IsFloat64", np_source("x", "np.sin(x)"), "float64(int32)",
                       {{{i32(1)}, f64(std::sin(1.0))}, {{i32(-3)}, f64(std::sin(-3.0))}}, 1));
  cases.push_back(make("Np_hypot_arctan2_Float64", np_source("x, y", "np.hypot(x, y) + np.arctan2(x, y)"),
                       "float64(float64, float64)",
                       {{{f64(3), f64(4)}, f64(5 + std::atan2(3.0, 4.0))}, {{f64(-1), f64(-0.5)}, f64(std::hypot(1, 0.5) + std::atan2(-1.0, -0.5))}},
                       2));
  cases.push_back(make("Np_deg2rad_Float32StaysFloat32", np_source("x", "np.deg2rad(x)"), "float32(float32)",
                       {{{f32(180)}, f32(180.0f * static_cast<float>(M_PI / 180.0))},
                        {{f32(-45)}, f32(-45.0f * static_cast<float>(M_PI / 180.0))}}));
  cases.push_back(make("Np_rad2deg_degrees_radians_Float64", np_source("x", "np.rad2deg(x) + np.degrees(np.radians(x))"),
                       "float64(float64)", {{{f64(M_PI)}, f64(M_PI * (180.0 / M_PI) + (M_PI * (M_PI / 180.0)) * (180.0 / M_PI))}}, 2));
  cases.push_back(make("Np_sqrt_exp_Complex128", np_source("z", "np.sqrt(z) + np.exp(z)"), "complex128(complex128)",
                       {{{c128(-4, 0)}, c128(std::sqrt(std::complex<double>(-4, 0)) + std::exp(std::complex<double>(-4, 0)))},
                        {{c128(1, 2)}, c128(std::sqrt(std::complex<double>(1, 2)) + std::exp(std::complex<double>(1, 2)))}},
                       4));
  cases.push_back(make("Np_isnan_isinf_isfinite_signbit", np_source("x", "np.isnan(x) + 2 * np.isinf(x) + 4 * np.isfinite(x) + 8 * np.signbit(x)"),
                       "int64(float64)",
                       {{{f64(kNaN)}, i64(1)}, {{f64(-kInf)}, i64(2 + 8)}, {{f64(-0.0)}, i64(4 + 8)}, {{f64(1)}, i64(4)}}));
  cases.push_back(make("Np_constants", np_source("x", "x * np.pi + np.e + np.euler_gamma"), "float64(float64)",
                       {{{f64(2)}, f64(2 * M_PI + M_E + 0.5772156649015329)}}, 1));
  cases.push_back(make("Np_dtype_constructor_RoundsToFloat32", np_source("x", "np.float32(x) * 3"), "float64(float64)",
                       {{{f64(0.1)}, f64(static_cast<double>(static_cast<float>(0.1) * 3.0f))}}));

  // NumPy 2 definitions (not in Debian's NumPy 1.24, so written out here):
  // complex sign is z/|z|, floor/ceil/trunc of an integer keep it (2.1),
  // bitwise_count is the ones of the magnitude as uint8 (2.0).
  {
    std::vector<Row> r128;
    std::vector<Row> r64;
    for (std::complex<double> z : {std::complex<double>(3, 4), std::complex<double>(0, 0), std::complex<double>(-2, 0),
                                   std::complex<double>(0, -5), std::complex<double>(1e300, 1e300),
                                   std::complex<double>(-1.5, 0.25)}) {
      const std::complex<double> s = std::abs(z) == 0.0 ? std::complex<double>(0, 0) : z / std::abs(z);
      r128.push_back({{c128(z)}, c128(s)});
      const std::complex<float> zf(static_cast<float>(z.real()), static_cast<float>(z.imag()));
      const std::complex<double> sf = std::abs(zf) == 0.0f ? std::complex<double>(0, 0) : std::complex<double>(zf / std::abs(zf));
      r64.push_back({{c64(zf.real(), zf.imag())}, c64(sf)});
    }
    r128.push_back({{c128(kNaN, 1)}, c128(kNaN, kNaN)});
    cases.push_back(make("Np2_sign_Complex128IsZOverItsModulus", np_source("z", "np.sign(z)"), "complex128(complex128)", r128, 4));
    cases.push_back(make("Np2_sign_Complex64", np_source("z", "np.sign(z)"), "complex64(complex64)", r64, 4));
  }
  cases.push_back(make("Np2_floor_ceil_trunc_OfInt8StayInt8", np_source("x", "np.floor(x) * 3 + np.ceil(x) - np.trunc(x)"),
                       "int8(int8)", {{{i8(100)}, i8(44)}, {{i8(-5)}, i8(-15)}, {{i8(-128)}, i8(-128)}}));
  cases.push_back(make("Np2_bitwise_count_Int8IsOfTheMagnitude", np_source("x", "np.bitwise_count(x)"), "uint8(int8)",
                       {{{i8(-128)}, u8(1)}, {{i8(-1)}, u8(1)}, {{i8(127)}, u8(7)}, {{i8(0)}, u8(0)}, {{i8(-6)}, u8(2)}}));
  cases.push_back(make("Np2_bitwise_count_UInt64", np_source("x", "np.bitwise_count(x)"), "uint8(uint64)",
                       {{{u64(~uint64_t{0})}, u8(64)}, {{u64(uint64_t{1} << 63)}, u8(1)}, {{u64(6)}, u8(2)}}));

  // for/while ... else: the else block runs when no break ended the loop
  // (Python's rule); a variable assigned by every break and by the else is
  // assigned after the statement.
  {
    const std::string find = "def f(x):\n    for i in range(2, 10):\n        if x % i == 0:\n            found = i\n"
                             "            break\n    else:\n        found = -1\n    return found\n";
    cases.push_back(make("LoopElse_ForRunsElseWithoutBreak", find, "int64(int64)",
                         {{{i64(9)}, i64(3)}, {{i64(11)}, i64(-1)}, {{i64(1)}, i64(-1)}, {{i64(8)}, i64(2)}}));
    const std::string count = "def f(x):\n    n = 0\n    while x > 1:\n        if x == 7:\n            break\n"
                              "        x = x // 2\n        n += 1\n    else:\n        n += 100\n    return n\n";
    // 20 -> 10 -> 5 -> 2 -> 1: 4 halvings then the else; 14 -> 7: one halving, then break.
    cases.push_back(make("LoopElse_WhileRunsElseWhenTheConditionEnds", count, "int64(int64)",
                         {{{i64(20)}, i64(104)}, {{i64(14)}, i64(1)}, {{i64(1)}, i64(100)}, {{i64(7)}, i64(0)}}));
    const std::string nested = "def f(x):\n    t = 0\n    for i in range(3):\n        for j in range(3):\n"
                               "            if j == x:\n                break\n        else:\n            t += 10\n"
                               "        t += 1\n    return t\n";
    cases.push_back(make("LoopElse_AnInnerBreakLeavesTheOuterElseAlone", nested, "int64(int64)",
                         {{{i64(1)}, i64(3)}, {{i64(5)}, i64(33)}}));
    // Without a break, an else block that returns ends the function: no
    // path falls off its end (once an internal error of the IR verifier).
    const std::string for_returns =
        "def f(x):\n    for i in range(3):\n        x += 1.0\n    else:\n"
        "        return x * 2.0\n";
    cases.push_back(make("LoopElse_ForWithoutBreakWhoseElseReturns", for_returns, "float64(float64)",
                         {{{f64(1.0)}, f64(8.0)}, {{f64(-3.0)}, f64(0.0)}}));
    const std::string while_returns =
        "def f(x):\n    while x < 10:\n        x = x + 4\n    else:\n"
        "        return x\n    return -1\n";
    cases.push_back(make("LoopElse_WhileWithoutBreakWhoseElseReturns", while_returns, "int64(int64)",
                         {{{i64(1)}, i64(13)}, {{i64(20)}, i64(20)}}));
  }

  // math.ldexp with an int64 exponent beyond int32 saturates (as Python's
  // OverflowError-free cases do: 0 or inf), rather than wrapping.
  cases.push_back(make("MathLdexpInt64ExponentSaturates", "import math\n\ndef f(x, n):\n    return math.ldexp(x, n)\n",
                       "float64(float64, int64)",
                       {{{f64(1.5), i64(int64_t{1} << 32)}, f64(kInf)}, {{f64(1.5), i64(-(int64_t{1} << 32) + 1)}, f64(0)},
                        {{f64(1.5), i64(3)}, f64(12)}}));

  // Numba-style iteration and reductions over tuples; assert that holds.
  cases.push_back(make("ForOverATupleOfMixedNumbersInOrder",
                       "def f(x):\n    s = 0.0\n    for k in (1, 2.5, x):\n        if k > 100:\n            break\n"
                       "        s = s * 10 + k\n    return s\n",
                       "float64(int32)", {{{i32(3)}, f64((1 * 10 + 2.5) * 10 + 3)}, {{i32(1000)}, f64(1 * 10 + 2.5)}}));
  cases.push_back(make("MinMaxOfATuple", "def f(a, b):\n    t = (a, b, 2.0)\n    return max(t) - min((a, b, 2.0))\n",
                       "float64(float64, float64)", {{{f64(1), f64(5)}, f64(4)}, {{f64(-3), f64(0)}, f64(5)}}));
  cases.push_back(make("AssertThatHoldsChangesNothing", "def f(x):\n    assert x == x, 'nan'\n    return x + 1\n",
                       "float64(float64)", {{{f64(1)}, f64(2)}}));

  // cuda.* device intrinsics: the GPU's definitions on both targets.
  const std::string cuda_src = "from numba import cuda\n\ndef f(x):\n    return cuda.";
  {
    std::vector<Row> popc32, clz32, ffs32, popc64, clz64, ffs64, brev32, brev64;
    for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{8}, kI32Min, int64_t{0x7fff}, int64_t{65536}}) {
      popc32.push_back({{i32(v)}, i32(cuda_popc(v, 32))});
      clz32.push_back({{i32(v)}, i32(cuda_clz(v, 32))});
      ffs32.push_back({{i32(v)}, u32(cuda_ffs(static_cast<int32_t>(v)))});
      brev32.push_back({{u32(static_cast<uint32_t>(v))}, u32(cuda_brev(static_cast<uint32_t>(v), 32))});
    }
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 40, kI64Min, int64_t{65536}}) {
      popc64.push_back({{i64(v)}, i64(cuda_popc(v, 64))});
      clz64.push_back({{i64(v)}, i64(cuda_clz(v, 64))});
      ffs64.push_back({{i64(v)}, u32(cuda_ffs(v))});
      brev64.push_back({{u64(static_cast<uint64_t>(v))}, u64(cuda_brev(static_cast<uint64_t>(v), 64))});
    }
    cases.push_back(make("Cuda_popc_Int32", cuda_src + "popc(x)\n", "int32(int32)", popc32));
    cases.push_back(make("Cuda_popc_Int64", cuda_src + "popc(x)\n", "int64(int64)", popc64));
    cases.push_back(make("Cuda_clz_Int32OfZeroIsTheWidth", cuda_src + "clz(x)\n", "int32(int32)", clz32));
    cases.push_back(make("Cuda_clz_Int64", cuda_src + "clz(x)\n", "int64(int64)", clz64));
    cases.push_back(make("Cuda_ffs_Int32IsOneBasedAndZeroForZero", cuda_src + "ffs(x)\n", "uint32(int32)", ffs32));
    cases.push_back(make("Cuda_ffs_Int64", cuda_src + "ffs(x)\n", "uint32(int64)", ffs64));
    cases.push_back(make("Cuda_brev_UInt32", cuda_src + "brev(x)\n", "uint32(uint32)", brev32));
    cases.push_back(make("Cuda_brev_UInt64", cuda_src + "brev(x)\n", "uint64(uint64)", brev64));
  }
  cases.push_back(make("Cuda_brev_OfInt8IsUInt32", cuda_src + "brev(x)\n", "uint64(int8)",
                       {{{i8(1)}, u64(0x80000000u)}, {{i8(-1)}, u64(0xffffffffu)}}));
  {
    const double a = 1.0 + std::ldexp(1.0, -30);
    const double b = 1.0 - std::ldexp(1.0, -30);
    cases.push_back(make("Cuda_fma_Float64RoundsOnce", "from numba import cuda\n\ndef f(x, y, z):\n    return cuda.fma(x, y, z)\n",
                         "float64(float64, float64, float64)", {{{f64(a), f64(b), f64(-1.0)}, f64(std::fma(a, b, -1.0))}}));
  }
  cases.push_back(make("Cuda_cbrt_Float32", cuda_src + "cbrt(x)\n", "float32(float32)",
                       {{{f32(27)}, f32(3)}, {{f32(-8)}, f32(-2)}, {{f32(0.001)}, f32(std::cbrt(0.001f))}}, 1));
  cases.push_back(make("Cuda_selp_Int32", "from numba import cuda\n\ndef f(x):\n    return cuda.selp(x > 0, x, -x)\n",
                       "int32(int32)", {{{i32(-4)}, i32(4)}, {{i32(9)}, i32(9)}}));
  {
    const std::string fp16 = "from numba import cuda\n\ndef f(x, y):\n    return cuda.fp16.";
    std::vector<Row> add;
    std::vector<Row> hmax;
    std::vector<Row> cmp;
    for (auto [a, b] : std::vector<std::pair<double, double>>{{1.5, 2.25}, {65504, 65504}, {kNaN, 1}, {0.1, -3}}) {
      add.push_back({{f16(a), f16(b)}, f16(half_add(round_half(a), round_half(b)))});
      hmax.push_back({{f16(a), f16(b)}, f16(cuda_hmax(round_half(a), round_half(b)))});
      const double ha = round_half(a);
      const double hb = round_half(b);
      // heq + 2 hne + 4 hlt: ordered, so a NaN gives 0 for all three.
      cmp.push_back({{f16(a), f16(b)}, i64((ha == hb) + 2 * (ha < hb || ha > hb) + 4 * (ha < hb))});
    }
    cases.push_back(make("CudaFp16_hadd", fp16 + "hadd(x, y)\n", "float16(float16, float16)", add));
    cases.push_back(make("CudaFp16_hmax_IgnoresNaN", fp16 + "hmax(x, y)\n", "float16(float16, float16)", hmax));
    cases.push_back(make("CudaFp16_comparisons_AreOrdered", fp16 + "heq(x, y) + 2 * cuda.fp16.hne(x, y) + 4 * cuda.fp16.hlt(x, y)\n",
                         "int64(float16, float16)", cmp));
    cases.push_back(make("CudaFp16_hsqrt_hneg_habs", "from numba import cuda\n\ndef f(x):\n    return cuda.fp16.habs(cuda.fp16.hneg(cuda.fp16.hsqrt(x)))\n",
                         "float16(float16)", {{{f16(4)}, f16(2)}, {{f16(2)}, f16(std::sqrt(2.0f))}}));
  }

  // int.bit_count(): ones of the magnitude, as Python.
  cases.push_back(make("BitCount_OfSignedIsOfTheMagnitude", "def f(x):\n    return x.bit_count()\n", "int64(int8)",
                       {{{i8(-5)}, i64(2)}, {{i8(-128)}, i64(1)}, {{i8(127)}, i64(7)}, {{i8(0)}, i64(0)}}));
  cases.push_back(make("BitCount_UInt64", "def f(x):\n    return x.bit_count()\n", "int64(uint64)",
                       {{{u64(~uint64_t{0})}, i64(64)}, {{u64(6)}, i64(2)}}));

  // A helper's explicit signature converts its arguments (Numba's dispatcher).
  cases.push_back(make("HelperSignatureConvertsArguments",
                       "from numba import cuda\n\n@cuda.jit('float32(float32)', device=True)\ndef third(x):\n"
                       "    return x / 3\n\ndef f(x):\n    return third(x)\n",
                       "float64(float64)", {{{f64(1)}, f64(static_cast<double>(1.0f / 3.0f))}, {{f64(0.1)}, f64(static_cast<double>(0.1f / 3.0f))}}));

  // round(x, ndigits) as Numba computes it, overflow included.
  {
    const std::vector<std::pair<double, int64_t>> inputs = {
        {2.675, 2}, {1e300, 10}, {1234.5678, -2}, {0.5, 0}, {1.5, 0}, {2.5, 0}, {123.456, 25},
        {kInf, 2},  {kNaN, 3},   {-0.125, 2},     {3.0e38, 1}, {1.5, 400}, {-7.25, 1}};
    std::vector<Row> r64;
    std::vector<Row> r32;
    for (auto [x, n] : inputs) {
      r64.push_back({{f64(x), i64(n)}, f64(numba_round<double>(x, n))});
      r32.push_back({{f32(x), i64(n)}, f32(numba_round<float>(static_cast<float>(x), n))});
    }
    const std::string src = "def f(x, n):\n    return round(x, n)\n";
    cases.push_back(make("RoundNdigits_Float64AsNumba", src, "float64(float64, int64)", r64, 1));
    cases.push_back(make("RoundNdigits_Float32AsNumba", src, "float32(float32, int64)", r32, 1));
    cases.push_back(make("RoundNdigits_ConstantDigitsFloat32", "def f(x):\n    return round(x, 2)\n", "float32(float32)",
                         {{{f32(2.675)}, f32(numba_round<float>(2.675f, 2))}, {{f32(-1.005)}, f32(numba_round<float>(-1.005f, 2))}}));
  }

  // Star-calls: a tuple unpacked into the arguments of a function.
  {
    std::vector<Row> rows;
    for (std::complex<double> z : {std::complex<double>(3, -4), std::complex<double>(-1, 0.5)}) {
      const std::complex<double> round_trip = std::polar(std::abs(z), std::arg(z));
      rows.push_back({{c128(z)}, c128(round_trip)});
    }
    cases.push_back(make("StarCall_RectOfPolarRoundTrips", "import cmath\n\ndef f(z):\n    return cmath.rect(*cmath.polar(z))\n",
                         "complex128(complex128)", rows, 2));
  }
  cases.push_back(make("StarCall_ComplexOfATupleAndHelperArguments",
                       "def parts(x):\n    return x, 2 * x\n\ndef add3(a, b, c):\n    return a + b + c\n\n"
                       "def f(x):\n    t = parts(x)\n    return complex(*t).imag + add3(*t, 1.0) + add3(1, *(x, x))\n",
                       "float64(float64)", {{{f64(1.5)}, f64(3.0 + (1.5 + 3.0 + 1.0) + (1 + 1.5 + 1.5))}}));

  // Complex power of a zero base (Numba's numba_cpow; NumPy agrees on these):
  // 1 for a zero exponent, NaN where Python raises, else 0.
  {
    std::vector<Row> r128;
    std::vector<Row> r64;
    const std::vector<std::pair<std::complex<double>, std::complex<double>>> rows = {
        {{kNaN, kNaN}, {kNaN, kNaN}}, {{2, 0}, {0, 0}}, {{2, 1}, {kNaN, kNaN}}, {{-1, 0}, {kNaN, kNaN}},
        {{0, 0}, {1, 0}},             {{0, 1}, {kNaN, kNaN}}, {{0.5, 0}, {0, 0}}, {{kInf, 0}, {0, 0}}};
    for (const auto &[b, expected] : rows) {
      r128.push_back({{c128(0, 0), c128(b)}, c128(expected)});
      r64.push_back({{c64(0, 0), c64(b)}, c64(expected)});
    }
    const std::string src = "def f(a, b):\n    return a ** b\n";
    cases.push_back(make("ComplexPowOfZeroBase_Complex128", src, "complex128(complex128, complex128)", r128));
    cases.push_back(make("ComplexPowOfZeroBase_Complex64", src, "complex64(complex64, complex64)", r64));
  }

  // cmath at C99 Annex G's special values, as NumPy computes them (the table
  // is generated from NumPy by gen_complex_special_cases.py).
  {
    std::vector<std::string> order;
    std::map<std::string, std::vector<Row>> rows;
    for (const ComplexSpecialRow &r : complex_special_rows()) {
      const std::string key = std::string(r.fn) + (r.single ? "_Complex64" : "_Complex128");
      if (rows.count(key) == 0) order.push_back(key);
      Row row = r.single ? Row{{c64(r.re, r.im)}, c64(r.out_re, r.out_im)} : Row{{c128(r.re, r.im)}, c128(r.out_re, r.out_im)};
      rows[key].push_back(row);
    }
    for (const std::string &key : order) {
      const std::string fn = key.substr(0, key.find('_'));
      const std::string type = key.find("Complex64") != std::string::npos ? "complex64" : "complex128";
      cases.push_back(make("CmathSpecialValues_" + key, "import cmath\n\ndef f(z):\n    return cmath." + fn + "(z)\n",
                           type + "(" + type + ")", rows[key], 4, true));
    }
  }
  return cases;
}

}  // namespace semantic
