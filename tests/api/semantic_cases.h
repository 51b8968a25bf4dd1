// The semantic suite: one table of language cases run on every target.
//
// Each case is a source, the signature it is compiled for, and rows of
// {inputs, expected}. Expected values are computed independently of ufjit:
// exact integers from hand-written Python semantics (py_floordiv, ...) and
// float references from <cmath>/<complex> in float64, rounded to the result
// type; floats compare within a per-case tolerance in ulps of the result type.
//
// The CPU runner is tests/api/semantic_test.cpp; the GPU suite (tests/gpu/)
// includes this header and runs the same table with TargetKind::Cuda:
//
//   INSTANTIATE_TEST_SUITE_P(Gpu, MySemanticTest, ::testing::ValuesIn(semantic::all_cases()), semantic::case_name);
//   ... semantic::run_case(rt, ufjit::TargetKind::Cuda, GetParam());
//
// Every row runs as one element of a 1-D array call (the contiguous kernel),
// and row 0 again as 0-d operands (scalar kernel parameters, 0-d result).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace semantic {

using ufjit::DType;

// ------------------------------------------------------------------ values

/// The float16 value nearest to `x` (ties to even; overflow gives inf),
/// computed on the value grid (an implementation independent of ufjit's).
inline double round_half(double x) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0) {
    return x;
  }
  const double a = std::fabs(x);
  if (a >= 65520.0) {
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  }
  int e = 0;
  (void)std::frexp(a, &e);
  const int exponent = std::max(e - 1, -14);  // subnormals share 2^-14's grid
  const double q = std::ldexp(std::nearbyint(std::ldexp(a, 10 - exponent)), exponent - 10);
  return std::copysign(q, x);
}

/// IEEE half bits of a value already on the float16 grid.
inline uint16_t half_bits(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return 0x7e00;
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a < 0x1p-14) return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  int e = 0;
  (void)std::frexp(a, &e);
  const int exponent = e - 1;
  const auto mantissa = static_cast<uint16_t>(std::ldexp(a, 10 - exponent) - 1024.0);
  return sign | static_cast<uint16_t>((exponent + 15) << 10) | mantissa;
}

inline double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v = 0;
  if (exponent == 0x1f) {
    v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else {
    v = std::ldexp(1024 + mantissa, exponent - 25);
  }
  return (h & 0x8000) ? -v : v;
}

/// One scalar of any dtype.
struct Value {
  DType dtype = DType::Float64;
  double re = 0.0;  // float and complex values (real part)
  double im = 0.0;
  int64_t i = 0;    // signed ints and bool
  uint64_t u = 0;   // unsigned ints
};

inline Value f64(double v) { return {DType::Float64, v}; }
inline Value f32(double v) { return {DType::Float32, static_cast<double>(static_cast<float>(v))}; }
inline Value f16(double v) { return {DType::Float16, round_half(v)}; }
inline Value c128(double re, double im) { return {DType::Complex128, re, im}; }
inline Value c128(std::complex<double> z) { return c128(z.real(), z.imag()); }
inline Value c64(double re, double im) {
  return {DType::Complex64, static_cast<double>(static_cast<float>(re)), static_cast<double>(static_cast<float>(im))};
}
inline Value c64(std::complex<double> z) { return c64(z.real(), z.imag()); }
inline Value boolean(bool v) { return {DType::Bool, 0, 0, v ? 1 : 0}; }
inline Value sint(DType t, int64_t v) { return {t, 0, 0, v}; }
inline Value i8(int64_t v) { return sint(DType::Int8, static_cast<int8_t>(v)); }
inline Value i16(int64_t v) { return sint(DType::Int16, static_cast<int16_t>(v)); }
inline Value i32(int64_t v) { return sint(DType::Int32, static_cast<int32_t>(v)); }
inline Value i64(int64_t v) { return sint(DType::Int64, v); }
inline Value uint(DType t, uint64_t v) { return {t, 0, 0, 0, v}; }
inline Value u8(uint64_t v) { return uint(DType::UInt8, static_cast<uint8_t>(v)); }
inline Value u16(uint64_t v) { return uint(DType::UInt16, static_cast<uint16_t>(v)); }
inline Value u32(uint64_t v) { return uint(DType::UInt32, static_cast<uint32_t>(v)); }
inline Value u64(uint64_t v) { return uint(DType::UInt64, v); }

/// A float value of `t` (rounded to it).
inline Value real_of(DType t, double v) {
  if (t == DType::Float16) return f16(v);
  if (t == DType::Float32) return f32(v);
  return f64(v);
}
inline Value complex_of(DType t, std::complex<double> z) { return t == DType::Complex64 ? c64(z) : c128(z); }

inline void store(const Value &v, void *p) {
  switch (v.dtype) {
    case DType::Bool: { uint8_t b = v.i != 0; std::memcpy(p, &b, 1); break; }
    case DType::Int8: { int8_t x = static_cast<int8_t>(v.i); std::memcpy(p, &x, 1); break; }
    case DType::Int16: { int16_t x = static_cast<int16_t>(v.i); std::memcpy(p, &x, 2); break; }
    case DType::Int32: { int32_t x = static_cast<int32_t>(v.i); std::memcpy(p, &x, 4); break; }
    case DType::Int64: std::memcpy(p, &v.i, 8); break;
    case DType::UInt8: { uint8_t x = static_cast<uint8_t>(v.u); std::memcpy(p, &x, 1); break; }
    case DType::UInt16: { uint16_t x = static_cast<uint16_t>(v.u); std::memcpy(p, &x, 2); break; }
    case DType::UInt32: { uint32_t x = static_cast<uint32_t>(v.u); std::memcpy(p, &x, 4); break; }
    case DType::UInt64: std::memcpy(p, &v.u, 8); break;
    case DType::Float16: { uint16_t h = half_bits(v.re); std::memcpy(p, &h, 2); break; }
    case DType::Float32: { float x = static_cast<float>(v.re); std::memcpy(p, &x, 4); break; }
    case DType::Float64: std::memcpy(p, &v.re, 8); break;
    case DType::Complex64: { float x[2] = {static_cast<float>(v.re), static_cast<float>(v.im)}; std::memcpy(p, x, 8); break; }
    case DType::Complex128: { double x[2] = {v.re, v.im}; std::memcpy(p, x, 16); break; }
  }
}

inline Value load(DType t, const void *p) {
  Value v;
  v.dtype = t;
  switch (t) {
    case DType::Bool: { uint8_t b; std::memcpy(&b, p, 1); v.i = b; break; }
    case DType::Int8: { int8_t x; std::memcpy(&x, p, 1); v.i = x; break; }
    case DType::Int16: { int16_t x; std::memcpy(&x, p, 2); v.i = x; break; }
    case DType::Int32: { int32_t x; std::memcpy(&x, p, 4); v.i = x; break; }
    case DType::Int64: std::memcpy(&v.i, p, 8); break;
    case DType::UInt8: { uint8_t x; std::memcpy(&x, p, 1); v.u = x; break; }
    case DType::UInt16: { uint16_t x; std::memcpy(&x, p, 2); v.u = x; break; }
    case DType::UInt32: { uint32_t x; std::memcpy(&x, p, 4); v.u = x; break; }
    case DType::UInt64: std::memcpy(&v.u, p, 8); break;
    case DType::Float16: { uint16_t h; std::memcpy(&h, p, 2); v.re = half_value(h); break; }
    case DType::Float32: { float x; std::memcpy(&x, p, 4); v.re = x; break; }
    case DType::Float64: std::memcpy(&v.re, p, 8); break;
    case DType::Complex64: { float x[2]; std::memcpy(x, p, 8); v.re = x[0]; v.im = x[1]; break; }
    case DType::Complex128: { double x[2]; std::memcpy(x, p, 16); v.re = x[0]; v.im = x[1]; break; }
  }
  return v;
}

inline std::string to_string(const Value &v) {
  std::ostringstream os;
  os.precision(17);
  os << ufjit::dtype_name(v.dtype) << '(';
  switch (ufjit::dtype_kind(v.dtype)) {
    case 'b': os << (v.i ? "True" : "False"); break;
    case 'i': os << v.i; break;
    case 'u': os << v.u; break;
    case 'f': os << v.re; break;
    default: os << v.re << (std::signbit(v.im) ? "-" : "+") << std::fabs(v.im) << 'j'; break;
  }
  os << ')';
  return os.str();
}

/// One unit in the last place of |x| in float type `t` (the gap above |x|).
inline double ulp(DType t, double x) {
  const double a = std::fabs(x);
  if (t == DType::Float16) {
    int e = 0;
    (void)std::frexp(a, &e);
    return std::ldexp(1.0, std::max(e - 1, -14) - 10);
  }
  if (t == DType::Float32 || t == DType::Complex64) {
    const float f = static_cast<float>(a);
    return static_cast<double>(std::nextafter(f, std::numeric_limits<float>::infinity()) - f);
  }
  return std::nextafter(a, std::numeric_limits<double>::infinity()) - a;
}

/// Whether a real component matches within `ulps` (NaN matches NaN; infinities
/// exactly; `signed_zero`: a zero must have the expected sign). `scale` is
/// the magnitude whose ulp is the unit (for complex: the larger component).
inline bool close(DType t, double actual, double expected, double ulps, bool signed_zero, double scale) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  if (std::isnan(actual) || std::isinf(actual)) return false;
  if (signed_zero && expected == 0.0 && std::signbit(actual) != std::signbit(expected)) return false;
  if (actual == expected) return true;  // also at the largest finite value, whose ulp above is infinite
  return std::fabs(actual - expected) <= ulps * ulp(t, scale);
}

inline ::testing::AssertionResult matches(const Value &actual, const Value &expected, double ulps, bool signed_zero) {
  bool ok = actual.dtype == expected.dtype;
  if (ok) {
    switch (ufjit::dtype_kind(expected.dtype)) {
      case 'b':
      case 'i': ok = actual.i == expected.i; break;
      case 'u': ok = actual.u == expected.u; break;
      case 'f': ok = close(expected.dtype, actual.re, expected.re, ulps, signed_zero, expected.re); break;
      default: {
        const double scale = std::max(std::fabs(expected.re), std::fabs(expected.im));
        const bool finite = std::isfinite(scale);
        ok = close(expected.dtype, actual.re, expected.re, ulps, signed_zero, finite ? scale : expected.re) &&
             close(expected.dtype, actual.im, expected.im, ulps, signed_zero, finite ? scale : expected.im);
      }
    }
  }
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "actual " << to_string(actual) << ", expected " << to_string(expected)
                                       << " (tolerance " << ulps << " ulp)";
}

// ------------------------------------------------------------------- cases

struct Row {
  std::vector<Value> in;
  Value out;
};

struct Case {
  std::string name;       // a GoogleTest-safe identifier
  std::string source;     // one function (bare def, helpers allowed)
  std::string signature;  // the signature it is compiled for
  std::vector<Row> rows;
  double ulps = 0.0;      // tolerance for float/complex results
  bool signed_zero = false;
};

/// GoogleTest prints a case by name (not as raw bytes in test listings).
inline void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

/// Runs one case on `target`: all rows as one array call, then row 0 as 0-d
/// operands. Failures name the case, the row and its inputs.
inline void run_case(ufjit::Runtime &rt, ufjit::TargetKind target, const Case &c) {
  SCOPED_TRACE("case " + c.name + ": " + c.signature + "\n" + c.source);
  ufjit::Ufunc f = rt.vectorize(c.source, {c.signature});
  ASSERT_FALSE(c.rows.empty());
  const std::size_t n_in = c.rows.front().in.size();
  const auto n = static_cast<int64_t>(c.rows.size());
  std::vector<ufjit::Array> inputs;
  std::vector<ufjit::Operand> operands;
  for (std::size_t k = 0; k < n_in; ++k) {
    const DType t = c.rows.front().in[k].dtype;
    ufjit::Array a = ufjit::Array::host(t, {n});
    for (int64_t r = 0; r < n; ++r) {
      store(c.rows[static_cast<std::size_t>(r)].in[k], static_cast<char *>(a.data()) + r * ufjit::dtype_size(t));
    }
    operands.emplace_back(a.view());
    inputs.push_back(std::move(a));
  }
  ufjit::Array result = f.call_on(target, operands);
  const DType rt_dtype = c.rows.front().out.dtype;
  ASSERT_EQ(result.dtype(), rt_dtype);
  ASSERT_EQ(result.shape(), (std::vector<int64_t>{n}));
  ufjit::Array host = result.residence() == ufjit::Residence::Host ? std::move(result) : rt.to_host(result);
  for (int64_t r = 0; r < n; ++r) {
    const Row &row = c.rows[static_cast<std::size_t>(r)];
    std::string args;
    for (const Value &v : row.in) args += (args.empty() ? "" : ", ") + to_string(v);
    const Value actual = load(rt_dtype, static_cast<const char *>(host.data()) + r * ufjit::dtype_size(rt_dtype));
    EXPECT_TRUE(matches(actual, row.out, c.ulps, c.signed_zero)) << "row " << r << ": f(" << args << ")";
  }
  // Row 0 as 0-d operands: scalar kernel parameters and a 0-d result.
  std::vector<ufjit::Array> zero_d;
  std::vector<ufjit::Operand> scalar_operands;
  for (const Value &v : c.rows.front().in) {
    ufjit::Array a = ufjit::Array::host(v.dtype, {});
    store(v, a.data());
    scalar_operands.emplace_back(a.view());
    zero_d.push_back(std::move(a));
  }
  ufjit::Array r0 = f.call_on(target, scalar_operands);
  ASSERT_EQ(r0.view().ndim(), 0);
  ufjit::Array r0_host = r0.residence() == ufjit::Residence::Host ? std::move(r0) : rt.to_host(r0);
  EXPECT_TRUE(matches(load(rt_dtype, r0_host.data()), c.rows.front().out, c.ulps, c.signed_zero))
      << "row 0 as 0-d operands";
}

inline std::string case_name(const ::testing::TestParamInfo<Case> &info) { return info.param.name; }

// ------------------------------------------- Python semantics, by hand

/// Python's floor division on integers; a zero divisor gives 0 (LANGUAGE.md
/// section 5) and INT_MIN // -1 wraps to INT_MIN.
inline int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
/// Python's modulo on integers (sign of the divisor); by zero gives 0.
inline int64_t py_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
/// Exact integer power by repeated multiplication with int64 wrap-around;
/// negative exponents give 0 unless the base is 1 or -1; 0 to a negative
/// power gives INT64_MIN (Numba's int_power_impl, error_model='numpy').
inline int64_t py_ipow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 0) return std::numeric_limits<int64_t>::min();
    if (base == 1) return 1;
    if (base == -1) return (exp % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t result = 1;
  for (int64_t k = 0; k < exp; ++k) result *= static_cast<uint64_t>(base);
  return static_cast<int64_t>(result);
}
/// Python's float floor division and modulo (CPython float_divmod).
inline double py_float_floordiv(double a, double b) {
  if (b == 0.0) return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0.0) return std::copysign(0.0, a / b);
  double floordiv = std::floor(div);
  if (div - floordiv > 0.5) floordiv += 1.0;
  return floordiv;
}
inline double py_float_mod(double a, double b) {
  if (b == 0.0) return std::fmod(a, b);  // NaN
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

inline std::vector<Case> language_cases();
inline std::vector<Case> math_cases();
inline std::vector<Case> cmath_cases();
inline std::vector<Case> numpy_cases();
inline std::vector<Case> numpy_function_cases();

inline std::vector<Case> all_cases() {
  std::vector<Case> all = language_cases();
  for (auto &c : math_cases()) all.push_back(std::move(c));
  for (auto &c : cmath_cases()) all.push_back(std::move(c));
  for (auto &c : numpy_cases()) all.push_back(std::move(c));
  for (auto &c : numpy_function_cases()) all.push_back(std::move(c));
  return all;
}

}  // namespace semantic

#include "semantic_language_cases.h"
#include "semantic_math_cases.h"
#include "semantic_numpy_cases.h"
#include "semantic_numpy_function_cases.h"
