// CPU-target throughput of the seed kernels (examples/*.ufn) on 2^24
// elements: ufjit single-threaded vs the same function as a plain C++ loop
// compiled -O3 -march=native (goal: ufjit >= 0.9x the loop), and ufjit's
// scaling with threads.
//
//   bench_cpu                                  # everything
//   bench_cpu --benchmark_filter='/threads:1$' # the single-thread comparison
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

constexpr std::size_t kN = std::size_t{1} << 24;
const float kSqrt2Pi = static_cast<float>(std::sqrt(2 * M_PI));

struct Data {
  std::vector<float> a, b, c, d, out;
  std::vector<int64_t> i, j, iout;
  Data() : a(kN), b(kN), c(kN), d(kN), out(kN), i(kN), j(kN), iout(kN) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    for (std::size_t k = 0; k < kN; ++k) {
      a[k] = u(rng);
      b[k] = u(rng) + 4.0f;
      c[k] = u(rng);
      d[k] = u(rng) + 4.0f;
      i[k] = static_cast<int64_t>(k);
      j[k] = static_cast<int64_t>(3 * k);
    }
  }
};

Data &data() {
  static Data d;
  return d;
}

// ------------------------------------------------ plain C++ references

__attribute__((noinline)) void cpp_gaussian(const float *x, float mean, float sigma, float *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float t = (x[k] - mean) / sigma;
    out[k] = std::exp(-0.5f * t * t) / (sigma * kSqrt2Pi);
  }
}

__attribute__((noinline)) void cpp_sincos(const float *x, float *out, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const float c = std::cos(x[k]);
    const float s = std::sin(x[k]);
    out[k] = c * c + s * s;
  }
}

__attribute__((noinline)) void cpp_polar_distance(const float *r1, const float *t1, const float *r2, const float *t2,
                                                  float *out, std::size_t n) {
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
};

/// One Runtime per thread count (its pool size), kernels loaded once.
Kernels &kernels(int threads) {
  static std::map<int, Kernels> all;
  Kernels &k = all[threads];
  if (!k.rt) {
    ufjit::RuntimeOptions options;
    options.target = ufjit::TargetKind::Cpu;
    options.cpu_threads = threads;
    k.rt = std::make_unique<ufjit::Runtime>(options);
    const std::string dir = std::string(UFJIT_SOURCE_DIR) + "/examples/";
    k.gauss = k.rt->load_file(dir + "gaussian_pdf.ufn");
    k.sincos = k.rt->load_file(dir + "sincos.ufn");
    k.polar = k.rt->load_file(dir + "polar_distance.ufn");
    k.add = k.rt->load_file(dir + "add_ufunc.ufn");
  }
  return k;
}

void finish(benchmark::State &state, std::size_t bytes_per_element) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kN));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kN * bytes_per_element));
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

}  // namespace

BENCHMARK(BM_gaussian_pdf_cpp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gaussian_pdf_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sincos_cpp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sincos_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polar_distance_cpp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_polar_distance_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_add_ufunc_cpp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_ufunc_ufjit)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
