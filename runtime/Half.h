// IEEE binary16 <-> float conversions on the host (scalar parameters, host
// casts, tests). Round to nearest even, subnormals, inf and NaN preserved.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ufjit::runtime {

/// The float16 bits nearest to `d` (ties to even) with a single rounding;
/// NaN stays a quiet NaN, overflow gives inf.
inline uint16_t double_to_half_bits(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
  if (std::isnan(d)) {
    return static_cast<uint16_t>(sign | 0x7e00u);
  }
  const double a = std::fabs(d);
  if (a >= 65520.0) {  // halfway between 65504 (max half) and 65536 rounds to inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (a < 0x1p-14) {  // subnormal (or zero): units of 2^-24, exact scaling
    const double q = std::nearbyint(std::ldexp(a, 24));  // 1024 becomes the smallest normal
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));
  }
  int e = 0;
  (void)std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exponent = e - 1;     // a in [2^exponent, 2^(exponent+1))
  double r = std::nearbyint(std::ldexp(a, 10 - exponent));  // in [1024, 2048]
  if (r >= 2048.0) {
    r = 1024.0;
    ++exponent;
  }
  if (exponent > 15) {
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  const auto biased = static_cast<uint16_t>(exponent + 15);
  return static_cast<uint16_t>(sign | (biased << 10) | (static_cast<uint16_t>(r) - 1024u));
}

inline uint16_t float_to_half_bits(float f) { return double_to_half_bits(static_cast<double>(f)); }

/// The exact float value of float16 bits.
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t x = 0;
  if (exponent == 0x1fu) {
    x = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    x = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    x = sign;
  } else {  // subnormal: normalise
    uint32_t e = 113u;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    x = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f = 0;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

}  // namespace ufjit::runtime
