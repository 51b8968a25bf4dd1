#include "Repr.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "ufjit/dtype.h"

namespace ufjit::tool {
namespace {

template <typename T>
T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// Places the shortest round-trip digits `digits` (no point) with decimal
/// exponent `exp` (value = d.ddd x 10^exp) as Python's repr does: fixed for
/// -4 <= exp < 16, else scientific with a two-digit exponent at least.
/// `point` adds ".0" to integral fixed values (floats do; complex parts don't).
std::string place_digits(const std::string &digits, int exp, bool point) {
  if (exp < -4 || exp >= 16) {
    std::string out(1, digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    char tail[16];
    std::snprintf(tail, sizeof tail, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + tail;
  }
  if (exp < 0) {
    return "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  }
  const auto whole = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= whole) {
    return digits + std::string(whole - digits.size(), '0') + (point ? ".0" : "");
  }
  return digits.substr(0, whole) + "." + digits.substr(whole);
}

/// Splits scientific text ("-1.25e+03", from std::to_chars or printf) into
/// sign, digits and exponent.
Decimal parse_scientific(const char *text) {
  Decimal d;
  d.negative = text[0] == '-';
  const std::string_view s(text + (d.negative ? 1 : 0));
  const std::size_t e = s.find('e');
  d.exp = std::atoi(s.data() + e + 1);
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] != '.') {
      d.digits += s[i];
    }
  }
  return d;
}

std::string from_scientific(const char *text, bool point) {
  const Decimal d = parse_scientific(text);
  std::string out = d.negative ? "-" : "";
  out += place_digits(d.digits, d.exp, point);
  return out;
}

template <typename T>
std::string shortest(T value, bool point) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text - 1, value, std::chars_format::scientific);
  *end = '\0';
  return from_scientific(text, point);
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    float f = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
    return sign ? -f : f;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The bits of a float16 from its exact value.
uint16_t half_bits(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  const double a = std::fabs(v);
  if (a == 0.0) {
    return sign;
  }
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  if (e - 1 >= -14) {
    const auto mant = static_cast<uint16_t>(std::lround((2 * m - 1) * 1024));
    return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | mant);
  }
  return static_cast<uint16_t>(sign | std::lround(a * 16777216.0));  // subnormal: a / 2^-24
}

/// Shortest round-trip scientific text of a finite value of dtype `t`
/// (float16, float32 or float64): the fewest digits that read back the same.
std::string shortest_text(DType t, double v) {
  char text[64];
  if (t == DType::Float32) {
    auto [end, ec] = std::to_chars(text, text + sizeof text - 1, static_cast<float>(v), std::chars_format::scientific);
    *end = '\0';
    return text;
  }
  if (t == DType::Float64 || v == 0.0) {
    auto [end, ec] = std::to_chars(text, text + sizeof text - 1, v, std::chars_format::scientific);
    *end = '\0';
    return text;
  }
  // float16: the fewest significant digits whose value is nearer than
  // either neighbour (above 65504 the step below stands in for infinity).
  const uint16_t magnitude = half_bits(v) & 0x7fffu;
  const double a = std::fabs(v);
  const double down = half_to_float(static_cast<uint16_t>(magnitude - 1));
  const double up = magnitude < 0x7bffu ? half_to_float(static_cast<uint16_t>(magnitude + 1)) : a + (a - down);
  for (int digits = 1; digits <= 5; ++digits) {
    std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
    const double d = std::fabs(std::strtod(text, nullptr));
    if (std::fabs(d - a) * 2 < up - a && std::fabs(d - a) * 2 < a - down) {
      return text;
    }
  }
  std::snprintf(text, sizeof text, "%.4e", v);
  return text;
}

std::string shortest_half(uint16_t h) {
  const double v = half_to_float(h);
  if (!std::isfinite(v)) {
    return shortest(v, true);
  }
  return from_scientific(shortest_text(DType::Float16, v).c_str(), true);
}

/// Python's complex repr: (1.5+2j), 2j, (-0-2j), (nan+nanj).
std::string python_complex(double re, double im, bool single) {
  const std::string imag = single ? shortest(static_cast<float>(im), false) : shortest(im, false);
  if (re == 0.0 && !std::signbit(re)) {
    return imag + "j";
  }
  const std::string real = single ? shortest(static_cast<float>(re), false) : shortest(re, false);
  const bool minus = std::signbit(im) && !std::isnan(im);
  return "(" + real + (minus ? "" : "+") + imag + "j)";
}

std::string format_element(DType t, const uint8_t *p) {
  switch (t) {
    case DType::Bool: return *p ? "True" : "False";
    case DType::Int8: return std::to_string(load<int8_t>(p));
    case DType::Int16: return std::to_string(load<int16_t>(p));
    case DType::Int32: return std::to_string(load<int32_t>(p));
    case DType::Int64: return std::to_string(load<int64_t>(p));
    case DType::UInt8: return std::to_string(load<uint8_t>(p));
    case DType::UInt16: return std::to_string(load<uint16_t>(p));
    case DType::UInt32: return std::to_string(load<uint32_t>(p));
    case DType::UInt64: return std::to_string(load<uint64_t>(p));
    case DType::Float16: return shortest_half(load<uint16_t>(p));
    case DType::Float32: return shortest(load<float>(p), true);
    case DType::Float64: return shortest(load<double>(p), true);
    case DType::Complex64: return python_complex(load<float>(p), load<float>(p + 4), true);
    case DType::Complex128: return python_complex(load<double>(p), load<double>(p + 8), false);
  }
  return "?";
}

}  // namespace

Decimal shortest_decimal(DType t, double v) { return parse_scientific(shortest_text(t, v).c_str()); }

std::string python_literal(DType t, const uint8_t *p) { return format_element(t, p); }

double half_value(uint16_t bits) { return half_to_float(bits); }

}  // namespace ufjit::tool
