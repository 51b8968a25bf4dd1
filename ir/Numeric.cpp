#include "ir/Numeric.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdlib>

#include "frontend/InternalAssert.h"

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

std::string format_float(DType t, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
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
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace ufjit::ir
