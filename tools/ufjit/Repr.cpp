#include "Repr.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
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

/// Splits std::to_chars' shortest scientific text ("-1.25e+03") into sign,
/// digits and exponent, and places them.
std::string from_scientific(const char *text, bool point) {
  const bool negative = text[0] == '-';
  const std::string_view s(text + (negative ? 1 : 0));
  const std::size_t e = s.find('e');
  const int exp = std::atoi(s.data() + e + 1);
  std::string digits;
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] != '.') {
      digits += s[i];
    }
  }
  std::string out = negative ? "-" : "";
  out += place_digits(digits, exp, point);
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

/// The shortest decimal that rounds back to the same float16: fewest
/// significant digits whose value is nearer `h` than either neighbour.
std::string shortest_half(uint16_t h) {
  const double v = half_to_float(h);
  const uint16_t magnitude = h & 0x7fffu;
  if (std::isnan(v) || std::isinf(v) || magnitude == 0) {
    return shortest(v, true);
  }
  const double a = std::fabs(v);
  const double down = half_to_float(static_cast<uint16_t>(magnitude - 1));
  // Above the largest finite half (65504) the next step would be infinity:
  // take the spacing below instead.
  const double up = magnitude < 0x7bffu ? half_to_float(static_cast<uint16_t>(magnitude + 1)) : a + (a - down);
  for (int digits = 1; digits <= 5; ++digits) {
    char text[40];
    std::snprintf(text, sizeof text, "%.*e", digits - 1, a);
    const double d = std::strtod(text, nullptr);
    if (std::fabs(d - a) * 2 < up - a && std::fabs(d - a) * 2 < a - down) {
      std::string out = std::signbit(v) ? "-" : "";
      out += from_scientific(text, true);
      return out;
    }
  }
  return shortest(v, true);
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

/// Prints dimension `dim` and below; rows of an outer dimension are split by
/// a newline per inner dimension, indented under the first '[' as NumPy does.
void print_nested(std::ostream &out, const ArrayView &a, int dim, const uint8_t *base) {
  if (dim == a.ndim()) {
    out << format_element(a.dtype, base);
    return;
  }
  std::string separator = ",";
  if (dim + 1 == a.ndim()) {
    separator += ' ';
  } else {
    separator.append(static_cast<std::size_t>(a.ndim() - dim - 1), '\n');
    separator.append(static_cast<std::size_t>(7 + dim), ' ');  // under the '[' after "array("
  }
  out << "[";
  for (int64_t i = 0; i < a.shape[dim]; ++i) {
    if (i > 0) {
      out << separator;
    }
    print_nested(out, a, dim + 1, base + i * a.strides[dim]);
  }
  out << "]";
}

bool default_dtype(DType t) {
  return t == DType::Float64 || t == DType::Int64 || t == DType::Bool || t == DType::Complex128;
}

}  // namespace

void print_numpy_repr(std::ostream &out, const ArrayView &array) {
  const auto *base = static_cast<const uint8_t *>(array.data);
  if (array.ndim() == 0) {
    out << format_element(array.dtype, base);
    return;
  }
  out << "array(";
  if (array.size() == 0) {
    out << "[]";
    if (array.ndim() > 1) {
      out << ", shape=(";
      for (int d = 0; d < array.ndim(); ++d) {
        out << (d > 0 ? ", " : "") << array.shape[d];
      }
      out << ")";
    }
  } else {
    print_nested(out, array, 0, base);
  }
  if (array.size() == 0 || !default_dtype(array.dtype)) {
    out << ", dtype=" << dtype_name(array.dtype);
  }
  out << ")";
}

}  // namespace ufjit::tool
