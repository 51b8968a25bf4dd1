// Explicit kernels (@cuda.jit) measured through the public C++ API on the
// Runtime's default target (UFJIT_TARGET=cpu|cuda picks it), printed as one
// JSON object (benchmarks/kernels/compare_kernels.py runs Numba's cuda.jit and
// CuPy's RawKernel on the same kernels beside it):
//   GPU: the grid-stride add and a copy kernel on 2^26 float32 device
//        elements (GB/s, the add as a fraction of the copy), the tiled
//        shared-memory matmul (1024^2 float32, 16x16 tiles), and the host
//        cost of a launch: an empty kernel launched and synchronised, and
//        enqueued on a stream.
//   CPU: the add as a kernel against the same add as a ufunc (2^24
//        float32, every thread), the shared-memory block reduction and the
//        tiled matmul (fibers: barriers), and the empty launch.
// Every result is checked against a plain loop before any timing.
//
//   bench_kernels                 # the default target
//   UFJIT_TARGET=cpu bench_kernels
#include <ufjit/ufjit.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr const char *kKernels = R"src(
from numba import cuda, float32

TPB = 16

@cuda.jit("void(float32[:], float32[:], float32[:])")
def add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]

@cuda.jit("void(float32[:], float32[:])")
def copy(x, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i]

@cuda.jit("void(float32[:], float32[:])")
def block_sum(x, partial):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = tile[0]

@cuda.jit("void(float32[:, :], float32[:, :], float32[:, :])")
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), float32)
    sB = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = float32(0.0)
    for i in range(cuda.gridDim.x):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp

@cuda.jit("void()")
def empty():
    pass
)src";

constexpr const char *kAddUfunc = R"src(
from numba import vectorize

@vectorize(["float32(float32, float32)"])
def add_ufunc(x, y):
    return x + y
)src";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The best of `repeats` timings of `fn` (seconds), after one warm-up run.
double best_of(int repeats, const std::function<void()> &fn) {
  fn();
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

void check(bool ok, const char *what) {
  if (!ok) throw std::runtime_error(std::string("wrong result: ") + what);
}

struct Results {
  std::string json;
  void add(const std::string &key, double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", value);
    json += (json.empty() ? "" : ",\n  ") + ("\"" + key + "\": ") + text;
  }
};

/// The matmul of two n x n matrices, checked against a loop on a few rows.
void check_matmul(const std::vector<float> &a, const std::vector<float> &b, const std::vector<float> &c, int64_t n) {
  for (int64_t i = 0; i < n; i += n / 7 + 1) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < n; ++k) want += static_cast<double>(a[i * n + k]) * b[k * n + j];
      check(std::fabs(c[i * n + j] - want) <= 1e-3 * (1 + std::fabs(want)), "matmul");
    }
  }
}

void bench_gpu(ufjit::Runtime &rt, Results &out) {
  ufjit::Kernel add = rt.kernel(kKernels, "add");
  ufjit::Kernel copy = rt.kernel(kKernels, "copy");
  ufjit::Kernel matmul = rt.kernel(kKernels, "matmul");
  ufjit::Kernel empty = rt.kernel(kKernels, "empty");
  const int64_t n = int64_t{1} << 26;
  std::vector<float> hx(static_cast<std::size_t>(n)), hy(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) {
    hx[i] = static_cast<float>(i % 1000);
    hy[i] = 0.25f * static_cast<float>(i % 77);
  }
  ufjit::Array x = rt.to_device(hx), y = rt.to_device(hy), o = rt.device_empty(ufjit::DType::Float32, {n});
  const ufjit::LaunchConfig grid_stride{.grid = 132 * 16, .block = 256};
  add(grid_stride, x, y, o);
  std::vector<float> got(hx.size());
  ufjit::Array back = rt.to_host(o.view());
  std::copy_n(static_cast<const float *>(back.data()), got.size(), got.begin());
  for (std::size_t i = 0; i < got.size(); i += 997) check(got[i] == hx[i] + hy[i], "add");
  const double t_add = best_of(20, [&] { add(grid_stride, x, y, o); });
  const double t_copy = best_of(20, [&] { copy(grid_stride, x, o); });
  out.add("gpu_add_gbs", 12.0 * static_cast<double>(n) / t_add / 1e9);
  out.add("gpu_copy_gbs", 8.0 * static_cast<double>(n) / t_copy / 1e9);
  out.add("gpu_add_fraction_of_copy", (12.0 / t_add) / (8.0 / t_copy));

  const int64_t m = 1024;
  std::vector<float> ha(static_cast<std::size_t>(m * m)), hb(ha.size()), hc(ha.size());
  for (std::size_t i = 0; i < ha.size(); ++i) {
    ha[i] = static_cast<float>(i % 13) - 6;
    hb[i] = static_cast<float>(i % 7) * 0.5f;
  }
  ufjit::Array a = rt.to_device(ufjit::view(ha.data(), {m, m})), b = rt.to_device(ufjit::view(hb.data(), {m, m}));
  ufjit::Array c = rt.device_empty(ufjit::DType::Float32, {m, m});
  const ufjit::LaunchConfig tiles{.grid = {m / 16, m / 16}, .block = {16, 16}};
  matmul(tiles, a, b, c);
  ufjit::Array hc_back = rt.to_host(c.view());
  std::copy_n(static_cast<const float *>(hc_back.data()), hc.size(), hc.begin());
  check_matmul(ha, hb, hc, m);
  out.add("gpu_matmul_1024_ms", 1e3 * best_of(20, [&] { matmul(tiles, a, b, c); }));

  const ufjit::LaunchConfig one{.grid = 1, .block = 1};
  const int launches = 2000;
  out.add("gpu_empty_sync_us", 1e6 / launches * best_of(5, [&] {
    for (int k = 0; k < launches; ++k) empty(one);
  }));
  ufjit::Stream stream = rt.stream();
  const ufjit::LaunchConfig async_one{.grid = 1, .block = 1, .stream = &stream};
  out.add("gpu_empty_async_us", 1e6 / launches * best_of(5, [&] {
    for (int k = 0; k < launches; ++k) empty(async_one);
    stream.synchronize();
  }));
}

void bench_cpu(ufjit::Runtime &rt, Results &out) {
  ufjit::Kernel add = rt.kernel(kKernels, "add");
  ufjit::Kernel block_sum = rt.kernel(kKernels, "block_sum");
  ufjit::Kernel matmul = rt.kernel(kKernels, "matmul");
  ufjit::Kernel empty = rt.kernel(kKernels, "empty");
  ufjit::Ufunc add_ufunc = rt.vectorize(kAddUfunc);
  const int64_t n = int64_t{1} << 24;
  std::vector<float> x(static_cast<std::size_t>(n)), y(x.size()), o(x.size()), o2(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 1000);
    y[i] = 0.5f * static_cast<float>(i % 33);
  }
  const ufjit::LaunchConfig every{.grid = n / 256, .block = 256};
  add(every, ufjit::view(x), ufjit::view(y), ufjit::view(o));
  add_ufunc(ufjit::view(x), ufjit::view(y), ufjit::out(ufjit::view(o2)));
  check(o == o2, "add");
  const double t_kernel = best_of(5, [&] { add(every, ufjit::view(x), ufjit::view(y), ufjit::view(o)); });
  const double t_ufunc = best_of(5, [&] { add_ufunc(ufjit::view(x), ufjit::view(y), ufjit::out(ufjit::view(o2))); });
  out.add("cpu_add_kernel_ms", 1e3 * t_kernel);
  out.add("cpu_add_ufunc_ms", 1e3 * t_ufunc);
  out.add("cpu_add_kernel_over_ufunc", t_kernel / t_ufunc);

  const int64_t r = int64_t{1} << 20;
  std::vector<float> partial(static_cast<std::size_t>(r / 256));
  block_sum({.grid = r / 256, .block = 256}, ufjit::view(x.data(), {r}), ufjit::view(partial));
  for (std::size_t b = 0; b < partial.size(); b += 101) {
    double want = 0;
    for (std::size_t i = b * 256; i < (b + 1) * 256; ++i) want += x[i];
    check(std::fabs(partial[b] - want) <= 1e-3 * want, "block_sum");
  }
  out.add("cpu_block_sum_2p20_ms", 1e3 * best_of(5, [&] {
    block_sum({.grid = r / 256, .block = 256}, ufjit::view(x.data(), {r}), ufjit::view(partial));
  }));

  const int64_t m = 256;
  std::vector<float> a(static_cast<std::size_t>(m * m)), b(a.size()), c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 13) - 6;
    b[i] = static_cast<float>(i % 7) * 0.5f;
  }
  const ufjit::LaunchConfig tiles{.grid = {m / 16, m / 16}, .block = {16, 16}};
  auto run_matmul = [&] {
    matmul(tiles, ufjit::view(a.data(), {m, m}), ufjit::view(b.data(), {m, m}), ufjit::view(c.data(), {m, m}));
  };
  run_matmul();
  check_matmul(a, b, c, m);
  out.add("cpu_matmul_256_ms", 1e3 * best_of(5, run_matmul));
  // The sizes compare_kernels.py --simulator runs under Numba's CUDA simulator.
  const int64_t small = int64_t{1} << 12;
  out.add("cpu_block_sum_2p12_ms", 1e3 * best_of(5, [&] {
    block_sum({.grid = small / 256, .block = 256}, ufjit::view(x.data(), {small}), ufjit::view(partial.data(), {small / 256}));
  }));
  out.add("cpu_matmul_64_ms", 1e3 * best_of(5, [&] {
    matmul({.grid = {4, 4}, .block = {16, 16}}, ufjit::view(a.data(), {64, 64}), ufjit::view(b.data(), {64, 64}),
           ufjit::view(c.data(), {64, 64}));
  }));
  const int launches = 2000;
  out.add("cpu_empty_launch_us", 1e6 / launches * best_of(5, [&] {
    for (int k = 0; k < launches; ++k) empty({.grid = 1, .block = 1});
  }));
}

}  // namespace

int main() {
  try {
    ufjit::Runtime rt;
    Results out;
    const bool gpu = rt.target() == ufjit::TargetKind::Cuda;
    out.json = std::string("\"target\": \"") + (gpu ? "cuda" : "cpu") + "\"";
    if (gpu) {
      bench_gpu(rt, out);
    } else {
      bench_cpu(rt, out);
    }
    std::printf("{\n  %s\n}\n", out.json.c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_kernels: %s\n", e.what());
    return 1;
  }
  return 0;
}
