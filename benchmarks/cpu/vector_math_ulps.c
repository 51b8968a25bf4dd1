/* Accuracy and speed of the vector math libraries the CPU target can call
 * (codegen/VectorMath.h), outside ufjit: glibc's scalar libm, glibc's libmvec
 * (fastmath) and SLEEF's 1-ulp (u10, the default) and 3.5-ulp (u35)
 * functions, at 8 and 16 float32 lanes (4 and 8 float64 lanes), on 2^22
 * inputs per range. Errors in ulps of the result type against the float64
 * (float32 functions) or long double (float64 exp) C library value; time in
 * thread CPU ns per element (the second of two passes). Needs AVX-512 and
 * libsleef-dev; not built by CMake:
 *
 *   gcc -O2 -march=native benchmarks/cpu/vector_math_ulps.c -o /tmp/vector_math_ulps -lsleef -lmvec -lm
 *
 * Ranges: 0: [-3, 3] (bench_cpu's inputs), 1: [-1e4, 1e4], 2: every finite
 * float32 bit pattern equally likely (huge arguments: slow reduction paths),
 * 3 (exp only): [-100, 100], overflow and underflow included. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <math.h>
#include <sleef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

__m256 _ZGVdN8v_sinf(__m256);
__m256 _ZGVdN8v_cosf(__m256);
__m256 _ZGVdN8v_expf(__m256);
__m512 _ZGVeN16v_sinf(__m512);
__m512 _ZGVeN16v_cosf(__m512);
__m512 _ZGVeN16v_expf(__m512);
__m256d _ZGVdN4v_exp(__m256d);
__m512d _ZGVeN8v_exp(__m512d);

#define N (1 << 22)
static float xs[N], ys[N];
static double xd[N], yd[N];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ulps of float32 at the exact value ref (a float64 here). */
static double ulpf(float y, double ref) {
  if (isnan(ref)) return isnan(y) ? 0 : INFINITY;
  if (isinf((float)ref) || isnan(y) || isinf(y)) return y == (float)ref ? 0 : INFINITY;
  int e;
  frexp(ref, &e);
  if (e < -125) e = -125;
  return fabs((double)y - ref) / ldexp(1.0, e - 24);
}

static double ulpd(double y, long double ref) {
  if (isnan((double)ref)) return isnan(y) ? 0 : INFINITY;
  if (isinf((double)ref) || isnan(y) || isinf(y)) return y == (double)ref ? 0 : INFINITY;
  int e;
  frexpl(ref, &e);
  if (e < -1021) e = -1021;
  return (double)(fabsl((long double)y - ref) / ldexpl(1.0L, e - 53));
}

typedef void (*ff)(const float *, float *, int);
typedef void (*fd)(const double *, double *, int);
#define S1(NAME, F) \
  static void NAME(const float *x, float *y, int n) { for (int i = 0; i < n; i++) y[i] = F(x[i]); }
#define V8(NAME, F) \
  static void NAME(const float *x, float *y, int n) { for (int i = 0; i < n; i += 8) _mm256_storeu_ps(y + i, F(_mm256_loadu_ps(x + i))); }
#define V16(NAME, F) \
  static void NAME(const float *x, float *y, int n) { for (int i = 0; i < n; i += 16) _mm512_storeu_ps(y + i, F(_mm512_loadu_ps(x + i))); }
#define D4(NAME, F) \
  static void NAME(const double *x, double *y, int n) { for (int i = 0; i < n; i += 4) _mm256_storeu_pd(y + i, F(_mm256_loadu_pd(x + i))); }
#define D8(NAME, F) \
  static void NAME(const double *x, double *y, int n) { for (int i = 0; i < n; i += 8) _mm512_storeu_pd(y + i, F(_mm512_loadu_pd(x + i))); }

S1(glibc_sin, sinf) S1(glibc_cos, cosf) S1(glibc_exp, expf)
V8(mvec8_sin, _ZGVdN8v_sinf) V8(mvec8_cos, _ZGVdN8v_cosf) V8(mvec8_exp, _ZGVdN8v_expf)
V16(mvec16_sin, _ZGVeN16v_sinf) V16(mvec16_cos, _ZGVeN16v_cosf) V16(mvec16_exp, _ZGVeN16v_expf)
V8(sleef8_sin, Sleef_sinf8_u10avx2) V8(sleef8_cos, Sleef_cosf8_u10avx2) V8(sleef8_exp, Sleef_expf8_u10avx2)
V16(sleef16_sin, Sleef_sinf16_u10avx512f) V16(sleef16_cos, Sleef_cosf16_u10avx512f)
V16(sleef16_exp, Sleef_expf16_u10avx512f)
V16(u35_16_sin, Sleef_sinf16_u35avx512f) V16(u35_16_cos, Sleef_cosf16_u35avx512f)
static void glibc_exp64(const double *x, double *y, int n) { for (int i = 0; i < n; i++) y[i] = exp(x[i]); }
D4(mvec4_exp64, _ZGVdN4v_exp) D8(mvec8_exp64, _ZGVeN8v_exp)
D4(sleef4_exp64, Sleef_expd4_u10avx2) D8(sleef8_exp64, Sleef_expd8_u10avx512f)

/* sin and cos of one argument in one call (what ufjit fuses them into). */
static void sleef16_sincos(const float *x, float *y, int n) {
  for (int i = 0; i < n; i += 16) {
    Sleef___m512_2 r = Sleef_sincosf16_u10avx512f(_mm512_loadu_ps(x + i));
    _mm512_storeu_ps(y + i, _mm512_add_ps(r.x, r.y));
  }
}
static void sleef16_sin_plus_cos(const float *x, float *y, int n) {
  for (int i = 0; i < n; i += 16) {
    __m512 v = _mm512_loadu_ps(x + i);
    _mm512_storeu_ps(y + i, _mm512_add_ps(Sleef_sinf16_u10avx512f(v), Sleef_cosf16_u10avx512f(v)));
  }
}

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
static double uniform(double lo, double hi) { return lo + (next() >> 11) * 0x1.0p-53 * (hi - lo); }

static void fill(int range) {
  for (int i = 0; i < N; i++) {
    if (range == 0) xs[i] = (float)uniform(-3, 3);
    if (range == 1) xs[i] = (float)uniform(-1e4, 1e4);
    if (range == 3) xs[i] = (float)uniform(-100, 100);
    if (range == 2) {
      uint32_t bits;
      do bits = (uint32_t)next(); while (((bits >> 23) & 0xff) == 0xff);
      memcpy(&xs[i], &bits, 4);
    }
  }
}

static double timed(void (*f)(void)) {
  f();
  double t0 = now();
  f();
  return (now() - t0) / N * 1e9;
}

static ff cur_f;
static fd cur_d;
static void call_f(void) { cur_f(xs, ys, N); }
static void call_d(void) { cur_d(xd, yd, N); }

static void row(const char *lib, const char *fn, ff f, double (*ref)(double), int range) {
  fill(range);
  cur_f = f;
  double ns = timed(call_f), worst = 0;
  for (int i = 0; i < N; i++) {
    double u = ulpf(ys[i], ref(xs[i]));
    if (u > worst) worst = u;
  }
  printf("%-12s %-6s range %d  %6.3f ns/element  max %.3f ulp\n", lib, fn, range, ns, worst);
}

static void row64(const char *lib, fd f, int range) {
  for (int i = 0; i < N; i++) xd[i] = range == 0 ? uniform(-10, 10) : uniform(-750, 750);
  cur_d = f;
  double ns = timed(call_d), worst = 0;
  for (int i = 0; i < N; i++) {
    double u = ulpd(yd[i], expl((long double)xd[i]));
    if (u > worst) worst = u;
  }
  printf("%-12s exp64  range %d  %6.3f ns/element  max %.3f ulp\n", lib, range, ns, worst);
}

/* One library's variant of sinf or cosf. */
struct variant {
  const char *lib;
  ff sin_fn, cos_fn;
};

int main(void) {
  const struct variant trig[] = {
      {"glibc", glibc_sin, glibc_cos},           {"libmvec x8", mvec8_sin, mvec8_cos},
      {"libmvec x16", mvec16_sin, mvec16_cos},   {"sleef u10 x8", sleef8_sin, sleef8_cos},
      {"sleef u10x16", sleef16_sin, sleef16_cos}, {"sleef u35x16", u35_16_sin, u35_16_cos},
  };
  const int n_trig = (int)(sizeof trig / sizeof trig[0]);
  for (int r = 0; r < 3; r++) {
    for (int v = 0; v < n_trig; v++) row(trig[v].lib, "sinf", trig[v].sin_fn, sin, r);
    for (int v = 0; v < n_trig; v++) row(trig[v].lib, "cosf", trig[v].cos_fn, cos, r);
  }
  for (int r = 0; r < 4; r += 3) {
    row("glibc", "expf", glibc_exp, exp, r);
    row("libmvec x8", "expf", mvec8_exp, exp, r);
    row("libmvec x16", "expf", mvec16_exp, exp, r);
    row("sleef u10 x8", "expf", sleef8_exp, exp, r);
    row("sleef u10x16", "expf", sleef16_exp, exp, r);
  }
  for (int r = 0; r < 2; r++) {
    row64("glibc", glibc_exp64, r);
    row64("libmvec x4", mvec4_exp64, r);
    row64("libmvec x8", mvec8_exp64, r);
    row64("sleef u10 x4", sleef4_exp64, r);
    row64("sleef u10 x8", sleef8_exp64, r);
  }
  fill(0);
  cur_f = sleef16_sin_plus_cos;
  printf("sleef u10x16 sinf + cosf, two calls  %6.3f ns/element\n", timed(call_f));
  cur_f = sleef16_sincos;
  printf("sleef u10x16 sincosf, one call       %6.3f ns/element\n", timed(call_f));
  return 0;
}
