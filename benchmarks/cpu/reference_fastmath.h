// Plain C++ loops of the float32 seed kernels compiled with -ffast-math, the
// reference for ufjit's `fastmath=True` kernels in bench_cpu.cpp.
#pragma once

#include <cstddef>

namespace ufjit_bench {

/// gaussian_pdf over n elements, mean and sigma scalars.
void fast_gaussian(const float *x, float mean, float sigma, float *out, std::size_t n);
/// cos(x)^2 + sin(x)^2 over n elements.
void fast_sincos(const float *x, float *out, std::size_t n);
/// polar_distance over n elements.
void fast_polar_distance(const float *r1, const float *t1, const float *r2, const float *t2, float *out,
                         std::size_t n);

}  // namespace ufjit_bench
