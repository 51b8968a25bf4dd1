// CPU-target throughput of the seed kernels (examples/*.ufn) on 2^24
// elements: ufjit single-threaded vs the same function as a plain C++ loop
// compiled -O3 -march=native (goal: ufjit >= 0.9x the loop), and ufjit's
// scaling with threads. The *_fast_* benchmarks compare the float32 seeds
// with `fastmath=True` against the loops compiled with -ffast-math
// (reference_fastmath.cpp), where both sides may use vector math. The
// gaussian_pdf64 benchmarks run the same source with its signature made
// float64(float64, float64, float64).
//
// Honesty: both sides read the same float32 (int64 for add) arrays and write
// a float32 (int64) output of 2^24 elements; the scalars of gaussian_pdf are
// scalars on both sides; the references are noinline (or in another file) and
// write memory that ClobberMemory() keeps live. Before any timing, main()
// runs every kernel once both ways, checks ufjit's signatures and compares
// the outputs (exact for int64; within 1e-5, relative above 1 and absolute
// below, for float32), and refuses to run the benchmarks if they differ.
//
//   bench_cpu                                          # everything
//   bench_cpu --benchmark_filter='cpp|threads:1/'      # single-thread comparison
//   bench_cpu --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>
#include <ufjit/ufjit.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/cpu/reference_fastmath.h"

namespace {

constexpr std::size_t kN = std::size_t{1} << 24;
const float kSqrt2Pi = static_cast<float>(std::sqrt(2 * M_PI));

struct Data {
  std::vector<float> a, b, c, d, out;
  std::vector<int64_t> i, j, iout;
  std::vector<double> a64, out64;
  Data() : a(kN), b(kN), c(kN), d(kN), out(kN), i(kN), j(kN), iout(kN), a64(kN), out64(kN) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    for (std::size_t k = 0; k < kN; ++k) {
      a[k] = u(rng);
      b[k] = u(rng) + 4.0f;
      c[k] = u(rng);
      d[k] = u(rng) + 4.0f;
      i[k] = static_cast<int64_t>(k);
      j[k] = static_cast<int64_t>(3 * k);
      a64[k] = a[k];
    }
  }
};

Data &data() {
  static Data d;
  return d;
}

// ------------------------------------------------ plain C++ references

__attribute__((noinline)) void cpp_gaussian(const float *x, float mean, float sigma, float *out,
                                            std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float t = (x[k] - mean) / sigma;
    out[k] = std::exp(-0.5f * t * t) / (sigma * kSqrt2Pi);
  }
}

__attribute__((noinline)) void cpp_gaussian64(const double *x, double mean, double sigma, double *out,
                                              std::size_t n) {
  const double sqrt_2pi = kSqrt2Pi;  // the source's constant is a float32
  for (std::size_t k = 0; k < n; ++k) {
    const double t = (x[k] - mean) / sigma;
    out[k] = std::exp(-0.5 * t * t) / (sigma * sqrt_2pi);
  }
}

__attribute__((noinline)) void cpp_sincos(const float *x, float *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float c = std::cos(x[k]);
    const float s = std::sin(x[k]);
    out[k] = c * c + s * s;
  }
}

__attribute__((noinline)) void cpp_polar_distance(const float *r1, const float *t1, const float *r2,
                                                  const float *t2, float *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float x1 = r1[k] * std::cos(t1[k]);
    const float y1 = r1[k] * std::sin(t1[k]);
    const float x2 = r2[k] * std::cos(t2[k]);
    const float y2 = r2[k] * std::sin(t2[k]);
    out[k] = std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
  }
}

__attribute__((noinline)) void cpp_add(const int64_t *x, const int64_t *y, int64_t *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) out[k] = x[k] + y[k];
}

// ------------------------------------------------------------- ufjit

struct Kernels {
  std::unique_ptr<ufjit::Runtime> rt;
  ufjit::UfuncSet gauss, sincos, polar, add;
  // The same sources with `fastmath=True` added to the decorator.
  ufjit::UfuncSet gauss_fast, sincos_fast, polar_fast;
  ufjit::UfuncSet gauss64;  // gaussian_pdf.ufn with a float64 signature
};

std::string read_text(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// gaussian_pdf.ufn with its float32 signature made float64.
ufjit::UfuncSet load_gaussian64(ufjit::Runtime &rt, const std::string &path) {
  std::string source = read_text(path);
  const std::string f32 = "'float32(float32, float32, float32)'";
  const std::size_t at = source.find(f32);
  if (at == std::string::npos) {
    throw ufjit::Error(path + ": no " + f32 + " to make float64");
  }
  source.replace(at, f32.size(), "'float64(float64, float64, float64)'");
  return rt.load(source, path + " (float64)");
}

/// The example's source with `fastmath=True` added to its @vectorize.
ufjit::UfuncSet load_fastmath(ufjit::Runtime &rt, const std::string &path) {
  std::string source = read_text(path);
  const std::string decorator_end = "target='cuda')";
  const std::size_t at = source.find(decorator_end);
  if (at == std::string::npos) {
    throw ufjit::Error(path + ": no \"" + decorator_end + "\" to add fastmath=True to");
  }
  const std::string fast =
      source.substr(0, at) + "target='cuda', fastmath=True)" + source.substr(at + decorator_end.size());
  return rt.load(fast, path + " (fastmath=True)");
}

/// One Runtime per thread count (its pool size), kernels loaded once.
Kernels &kernels(int threads) {
  static std::map<int, Kernels> all;
  Kernels &k = all[threads];
  if (!k.rt) {
    ufjit::RuntimeOptions options;
    options.target = ufjit::TargetKind::Cpu;
    options.cpu_threads = threads;
    k.rt = std::make_unique<ufjit::Runtime>(options);
    // UFJIT_SOURCE_DIR in the environment: where the examples are on a host
    // the binary was copied to.
    const char *root = std::getenv("UFJIT_SOURCE_DIR");
    const std::string dir = std::string(root != nullptr ? root : UFJIT_SOURCE_DIR) + "/examples/";
    k.gauss = k.rt->load_file(dir + "gaussian_pdf.ufn");
    k.sincos = k.rt->load_file(dir + "sincos.ufn");
    k.polar = k.rt->load_file(dir + "polar_distance.ufn");
    k.add = k.rt->load_file(dir + "add_ufunc.ufn");
    k.gauss_fast = load_fastmath(*k.rt, dir + "gaussian_pdf.ufn");
    k.sincos_fast = load_fastmath(*k.rt, dir + "sincos.ufn");
    k.polar_fast = load_fastmath(*k.rt, dir + "polar_distance.ufn");
    k.gauss64 = load_gaussian64(*k.rt, dir + "gaussian_pdf.ufn");
  }
  return k;
}

void finish(benchmark::State &state, std::size_t bytes_per_element) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kN));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kN * bytes_per_element));
}

void BM_gaussian_pdf_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(static_cast<int>(state.range(0))).gauss["gaussian_pdf"];
  f(ufjit::view(d.a), 0.5f, 1.5f, ufjit::out(d.out));  // compile outside the timing
  for (auto _ : state) {
    f(ufjit::view(d.a), 0.5f, 1.5f, ufjit::out(d.out));
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_gaussian_pdf_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    cpp_gaussian(d.a.data(), 0.5f, 1.5f, d.out.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_gaussian_pdf64_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(static_cast<int>(state.range(0))).gauss64["gaussian_pdf"];
  f(ufjit::view(d.a64), 0.5, 1.5, ufjit::out(d.out64));
  for (auto _ : state) {
    f(ufjit::view(d.a64), 0.5, 1.5, ufjit::out(d.out64));
    benchmark::ClobberMemory();
  }
  finish(state, 16);
}

void BM_gaussian_pdf64_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    cpp_gaussian64(d.a64.data(), 0.5, 1.5, d.out64.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 16);
}

void BM_sincos_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(static_cast<int>(state.range(0))).sincos["sincos"];
  f(ufjit::view(d.a), ufjit::out(d.out));
  for (auto _ : state) {
    f(ufjit::view(d.a), ufjit::out(d.out));
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_sincos_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    cpp_sincos(d.a.data(), d.out.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_polar_distance_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(static_cast<int>(state.range(0))).polar["polar_distance"];
  f(ufjit::view(d.b), ufjit::view(d.a), ufjit::view(d.d), ufjit::view(d.c), ufjit::out(d.out));
  for (auto _ : state) {
    f(ufjit::view(d.b), ufjit::view(d.a), ufjit::view(d.d), ufjit::view(d.c), ufjit::out(d.out));
    benchmark::ClobberMemory();
  }
  finish(state, 20);
}

void BM_polar_distance_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    cpp_polar_distance(d.b.data(), d.a.data(), d.d.data(), d.c.data(), d.out.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 20);
}

void BM_add_ufunc_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(static_cast<int>(state.range(0))).add["add_ufunc"];
  f(ufjit::view(d.i), ufjit::view(d.j), ufjit::out(d.iout));
  for (auto _ : state) {
    f(ufjit::view(d.i), ufjit::view(d.j), ufjit::out(d.iout));
    benchmark::ClobberMemory();
  }
  finish(state, 24);
}

void BM_add_ufunc_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    cpp_add(d.i.data(), d.j.data(), d.iout.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 24);
}

/// Thread counts: 1, 2, 4, ... up to the hardware threads (and it).
void thread_counts(benchmark::internal::Benchmark *b) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int t = 1; t < hw; t *= 2) b->Arg(t);
  b->Arg(hw);
  b->ArgName("threads");
}

// ------------------------------------- fastmath: ufjit vs C++ -ffast-math

void BM_gaussian_pdf_fast_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(1).gauss_fast["gaussian_pdf"];
  f(ufjit::view(d.a), 0.5f, 1.5f, ufjit::out(d.out));
  for (auto _ : state) {
    f(ufjit::view(d.a), 0.5f, 1.5f, ufjit::out(d.out));
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_gaussian_pdf_fast_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    ufjit_bench::fast_gaussian(d.a.data(), 0.5f, 1.5f, d.out.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_sincos_fast_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(1).sincos_fast["sincos"];
  f(ufjit::view(d.a), ufjit::out(d.out));
  for (auto _ : state) {
    f(ufjit::view(d.a), ufjit::out(d.out));
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_sincos_fast_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    ufjit_bench::fast_sincos(d.a.data(), d.out.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 8);
}

void BM_polar_distance_fast_ufjit(benchmark::State &state) {
  Data &d = data();
  const ufjit::Ufunc &f = kernels(1).polar_fast["polar_distance"];
  f(ufjit::view(d.b), ufjit::view(d.a), ufjit::view(d.d), ufjit::view(d.c), ufjit::out(d.out));
  for (auto _ : state) {
    f(ufjit::view(d.b), ufjit::view(d.a), ufjit::view(d.d), ufjit::view(d.c), ufjit::out(d.out));
    benchmark::ClobberMemory();
  }
  finish(state, 20);
}

void BM_polar_distance_fast_cpp(benchmark::State &state) {
  Data &d = data();
  for (auto _ : state) {
    ufjit_bench::fast_polar_distance(d.b.data(), d.a.data(), d.d.data(), d.c.data(), d.out.data(), kN);
    benchmark::ClobberMemory();
  }
  finish(state, 20);
}

// ------------------------------------------------------ correctness, once

/// Largest |a - b| / max(|b|, floor) over the two outputs.
double max_difference(const std::vector<float> &a, const std::vector<float> &b, double floor) {
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double diff = std::fabs(static_cast<double>(a[k]) - static_cast<double>(b[k]));
    worst = std::max(worst, diff / std::max(std::fabs(static_cast<double>(b[k])), floor));
  }
  return worst;
}

bool has_signature(const ufjit::Ufunc &f, const std::string &expected) {
  const std::vector<std::string> sigs = f.signatures();
  if (sigs.size() == 1 && sigs[0] == expected) {
    return true;
  }
  std::fprintf(stderr, "%s: signatures differ from the reference's '%s':", f.name().c_str(),
               expected.c_str());
  for (const std::string &s : sigs) std::fprintf(stderr, " '%s'", s.c_str());
  std::fprintf(stderr, "\n");
  return false;
}

/// Compares |ufjit - C++| against 1e-5 * max(|C++|, 1): relative above 1,
/// absolute below (polar_distance cancels in x1 - x2, and g++ contracts the
/// loop into FMAs where ufjit, without fastmath, does not).
bool float_outputs_agree(const char *name, const std::vector<float> &ufjit_out,
                         const std::vector<float> &reference) {
  constexpr double kTolerance = 1e-5;
  const double worst = max_difference(ufjit_out, reference, 1.0);
  const double relative = max_difference(ufjit_out, reference, 1e-30);
  std::printf("check %-15s ufjit vs C++ loop: max |diff|/max(|ref|,1) %.3g (limit %.0e), max relative %.3g\n",
              name, worst, kTolerance, relative);
  return worst <= kTolerance;
}

/// Runs every kernel once through ufjit (1 thread) and the C++ loop and
/// compares; also checks ufjit compiled the reference's dtypes.
bool check_against_references() {
  Data &d = data();
  Kernels &k = kernels(1);
  std::vector<float> reference(kN);
  bool ok = true;

  const ufjit::Ufunc &gauss = k.gauss["gaussian_pdf"];
  ok = has_signature(gauss, "float32(float32, float32, float32)") && ok;
  gauss(ufjit::view(d.a), 0.5f, 1.5f, ufjit::out(d.out));
  cpp_gaussian(d.a.data(), 0.5f, 1.5f, reference.data(), kN);
  ok = float_outputs_agree("gaussian_pdf", d.out, reference) && ok;

  const ufjit::Ufunc &gauss64 = k.gauss64["gaussian_pdf"];
  ok = has_signature(gauss64, "float64(float64, float64, float64)") && ok;
  gauss64(ufjit::view(d.a64), 0.5, 1.5, ufjit::out(d.out64));
  std::vector<double> reference64(kN);
  cpp_gaussian64(d.a64.data(), 0.5, 1.5, reference64.data(), kN);
  double worst64 = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    worst64 = std::max(worst64, std::fabs(d.out64[i] - reference64[i]) / std::max(std::fabs(reference64[i]), 1.0));
  }
  std::printf("check %-15s ufjit vs C++ loop: max |diff|/max(|ref|,1) %.3g (limit 1e-12)\n", "gaussian_pdf64",
              worst64);
  ok = worst64 <= 1e-12 && ok;

  const ufjit::Ufunc &sincos = k.sincos["sincos"];
  ok = has_signature(sincos, "float32(float32)") && ok;
  sincos(ufjit::view(d.a), ufjit::out(d.out));
  cpp_sincos(d.a.data(), reference.data(), kN);
  ok = float_outputs_agree("sincos", d.out, reference) && ok;

  const ufjit::Ufunc &polar = k.polar["polar_distance"];
  ok = has_signature(polar, "float32(float32, float32, float32, float32)") && ok;
  polar(ufjit::view(d.b), ufjit::view(d.a), ufjit::view(d.d), ufjit::view(d.c), ufjit::out(d.out));
  cpp_polar_distance(d.b.data(), d.a.data(), d.d.data(), d.c.data(), reference.data(), kN);
  ok = float_outputs_agree("polar_distance", d.out, reference) && ok;

  const ufjit::Ufunc &add = k.add["add_ufunc"];
  ok = has_signature(add, "int64(int64, int64)") && ok;
  std::vector<int64_t> int_reference(kN);
  add(ufjit::view(d.i), ufjit::view(d.j), ufjit::out(d.iout));
  cpp_add(d.i.data(), d.j.data(), int_reference.data(), kN);
  const bool ints_equal = d.iout == int_reference;
  std::printf("check %-15s ufjit vs C++ loop: %s\n", "add_ufunc", ints_equal ? "identical" : "DIFFERENT");
  if (!ints_equal) {
    ok = false;
  }

  // fastmath=True against -ffast-math: both may use vector math (up to 4 ulp).
  const ufjit::Ufunc &gauss_fast = k.gauss_fast["gaussian_pdf"];
  gauss_fast(ufjit::view(d.a), 0.5f, 1.5f, ufjit::out(d.out));
  ufjit_bench::fast_gaussian(d.a.data(), 0.5f, 1.5f, reference.data(), kN);
  ok = float_outputs_agree("gaussian fast", d.out, reference) && ok;
  const ufjit::Ufunc &sincos_fast = k.sincos_fast["sincos"];
  sincos_fast(ufjit::view(d.a), ufjit::out(d.out));
  ufjit_bench::fast_sincos(d.a.data(), reference.data(), kN);
  ok = float_outputs_agree("sincos fast", d.out, reference) && ok;
  const ufjit::Ufunc &polar_fast = k.polar_fast["polar_distance"];
  polar_fast(ufjit::view(d.b), ufjit::view(d.a), ufjit::view(d.d), ufjit::view(d.c), ufjit::out(d.out));
  ufjit_bench::fast_polar_distance(d.b.data(), d.a.data(), d.d.data(), d.c.data(), reference.data(), kN);
  ok = float_outputs_agree("polar fast", d.out, reference) && ok;
  return ok;
}

}  // namespace

BENCHMARK(BM_gaussian_pdf_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_gaussian_pdf_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_gaussian_pdf64_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_gaussian_pdf64_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sincos_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sincos_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polar_distance_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polar_distance_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_add_ufunc_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_add_ufunc_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_gaussian_pdf_fast_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_gaussian_pdf_fast_ufjit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sincos_fast_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sincos_fast_ufjit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polar_distance_fast_cpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polar_distance_fast_ufjit)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  std::printf("host: %s\n", ufjit::version().c_str());
  if (!check_against_references()) {
    std::fprintf(stderr, "bench_cpu: ufjit and the C++ loops disagree; not timing them\n");
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
