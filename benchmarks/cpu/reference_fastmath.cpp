// The float32 seed kernels as plain C++ loops for the fastmath comparison of
// bench_cpu.cpp. This file alone is compiled with -ffast-math (see
// CMakeLists.txt), so g++ may vectorize expf/sinf/cosf through glibc's
// libmvec, as ufjit does for `fastmath=True` kernels; same bodies as the
// strict references in bench_cpu.cpp.
#include "benchmarks/cpu/reference_fastmath.h"

#include <cmath>

namespace ufjit_bench {

namespace {
const float kSqrt2Pi = static_cast<float>(std::sqrt(2 * M_PI));
}  // namespace

void fast_gaussian(const float *x, float mean, float sigma, float *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float t = (x[k] - mean) / sigma;
    out[k] = std::exp(-0.5f * t * t) / (sigma * kSqrt2Pi);
  }
}

void fast_sincos(const float *x, float *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float c = std::cos(x[k]);
    const float s = std::sin(x[k]);
    out[k] = c * c + s * s;
  }
}

void fast_polar_distance(const float *r1, const float *t1, const float *r2, const float *t2, float *out,
                         std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float x1 = r1[k] * std::cos(t1[k]);
    const float y1 = r1[k] * std::sin(t1[k]);
    const float x2 = r2[k] * std::cos(t2[k]);
    const float y2 = r2[k] * std::sin(t2[k]);
    out[k] = std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
  }
}

}  // namespace ufjit_bench
