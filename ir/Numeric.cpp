#include "ir/Numeric.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "support/InternalAssert.h"

namespace ufjit::ir {

double round_to_float16(double v) {
  if (v == 0.0 || std::isnan(v) || std::isinf(v)) return v;
  constexpr double kMaxHalf = 65504.0;
  int e = std::ilogb(std::fabs(v));
  // 11 significant bits for normals; a fixed quantum of 2^-24 for subnormals.
  int quantum_exp = e < -14 ? -24 : e - 10;
  double scaled = std::ldexp(v, -quantum_exp);  // exact: a power-of-two scaling
  double r = std::ldexp(std::nearbyint(scaled), quantum_exp);
  if (std::fabs(r) > kMaxHalf) return std::copysign(INFINITY, v);
  return r;
}

double round_to_float(DType t, double v) {
  switch (t) {
    case DType::Float16:
      return round_to_float16(v);
    case DType::Float32:
    case DType::Complex64:
      return static_cast<double>(static_cast<float>(v));
    case DType::Float64:
    case DType::Complex128:
      return v;
    default:
      break;
  }
  internal_error << "round_to_float: not a float type: " << dtype_name(t);
  return v;
}

std::string format_double(double v) { return format_float(DType::Float64, v); }

namespace {

/// The shortest significant digits of `v` that read back as `v` in type `t`,
/// in printf's %.*g form at the least precision that does: one strtod per
/// precision tried (the fallback for float16, which std::to_chars lacks).
std::string shortest_by_precision(DType t, double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (round_to_float(t, std::strtod(buf, nullptr)) == v) break;
  }
  std::string s = buf;
  // Python's repr: positional notation for exponents in [-4, 16).
  std::size_t e = s.find('e');
  if (e != std::string::npos) {
    int exponent = std::atoi(s.c_str() + e + 1);
    if (exponent >= -4 && exponent < 16) {
      std::size_t digits = 0;
      for (std::size_t i = 0; i < e; ++i) digits += (s[i] >= '0' && s[i] <= '9') ? 1 : 0;
      int decimals = std::max(0, static_cast<int>(digits) - 1 - exponent);
      std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
      s = buf;
    }
  }
  return s;
}

/// The same text, with std::to_chars's shortest round trip (Ryu) telling
/// the digit count instead of a snprintf and strtod per count tried. Empty
/// where the precision loop is needed: float16 (no to_chars), or a value
/// whose correctly rounded digits at that count do not read back (to_chars
/// then picks other digits of that length; the loop takes one digit more).
std::string shortest_by_to_chars(DType t, double v) {
  char buf[64];
  std::to_chars_result r{};
  if (t == DType::Float64 || t == DType::Complex128) {
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  } else if (t == DType::Float32 || t == DType::Complex64) {
    r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific);
  } else {
    return "";
  }
  if (r.ec != std::errc()) return "";
  int precision = 0;
  for (const char *c = buf; c != r.ptr && *c != 'e'; ++c) precision += (*c >= '0' && *c <= '9') ? 1 : 0;
  // The correctly rounded digits at that count, as %.*g prints them: "-d.ddde+XX".
  std::snprintf(buf, sizeof buf, "%.*e", precision - 1, v);
  if (round_to_float(t, std::strtod(buf, nullptr)) != v) return "";
  const std::string_view text(buf);
  const bool negative = text.front() == '-';
  const std::size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const int exponent = std::atoi(buf + e + 1);
  std::string s = negative ? "-" : "";
  // %g is positional for exponents in [-4, precision), the repr rule for
  // those in [-4, 16).
  if (exponent < -4 || exponent >= std::max(precision, 16)) {
    s += digits.substr(0, 1);
    if (precision > 1) s += "." + digits.substr(1);
    char exp_text[8];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return s + exp_text;
  }
  if (exponent < 0) return s + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  const std::size_t whole = static_cast<std::size_t>(exponent) + 1;
  if (whole > digits.size()) {
    // %.0f, as the loop prints it: the value's own integer digits past the
    // significant ones (423941184 for float32's 4.239412e+08), not zeros.
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (whole == digits.size()) return s + digits;
  return s + digits.substr(0, whole) + "." + digits.substr(whole);
}

}  // namespace

std::string format_float(DType t, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = shortest_by_to_chars(t, v);
  if (s.empty()) s = shortest_by_precision(t, v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace ufjit::ir
