// Throughput of PTX entries of the contiguous ABI (codegen/kernel/KernelABI.h:
// n, then one pointer per input and the output) under several launch
// shapes, beside the device copy bandwidth, in one process: the workbench
// for code generation and launch sizing changes (old and new PTX side by
// side, without rebuilding the runtime on the GPU host). Each output is
// hashed so that variants that must agree bit for bit can be compared.
//
// Usage: bench_ptx_lab LOG2N LABEL:FILE.ptx:ENTRY:INPUTS:DTYPE...
//   DTYPE f32 | f64 | i64; inputs as bench_gpu draws them (floats in
//   [0.5, 1.5), ints in [-1000, 1000)). Prints one row per entry and shape:
//   ufjit (the runtime's rule, runtime/cuda/LaunchConfig.cpp: the entry's
//   launch hint `<entry>__launch[e]` asks for ceil(n / (block * e)) blocks,
//   no hint for 16 waves of resident blocks), waves4 and waves16 (4 and 16
//   waves), full/2, full/4 and full/8 (a half, quarter, eighth of full) and
//   full (one block per `block` elements).
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

#define LAB_SYMBOLS(X)                                                                                      \
  X(cuInit)                                                                                                 \
  X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuModuleLoadData) X(cuModuleGetFunction)  \
      X(cuMemAlloc_v2) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemcpyDtoD_v2) X(cuLaunchKernel)           \
          X(cuCtxSynchronize) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) \
              X(cuOccupancyMaxPotentialBlockSize) X(cuDeviceGetAttribute) X(cuMemFree_v2) X(cuModuleUnload) \
                  X(cuGetErrorString) X(cuFuncGetAttribute) X(cuModuleGetGlobal_v2)

struct Driver {
#define LAB_FIELD(name) decltype(&::name) name = nullptr;
  LAB_SYMBOLS(LAB_FIELD)
#undef LAB_FIELD
};

Driver drv;

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *text = "?";
    if (drv.cuGetErrorString != nullptr) {
      drv.cuGetErrorString(r, &text);
    }
    std::fprintf(stderr, "bench_ptx_lab: %s: %s\n", what, text);
    std::exit(1);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median ms of `launch` over `reps` timed with events (after 3 untimed).
template <typename F>
double time_ms(F launch, int reps) {
  CUevent a = nullptr;
  CUevent b = nullptr;
  check(drv.cuEventCreate(&a, CU_EVENT_DEFAULT), "cuEventCreate");
  check(drv.cuEventCreate(&b, CU_EVENT_DEFAULT), "cuEventCreate");
  for (int i = 0; i < 3; ++i) {
    launch();
  }
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    drv.cuEventRecord(a, nullptr);
    launch();
    drv.cuEventRecord(b, nullptr);
    check(drv.cuEventSynchronize(b), "kernel");
    float ms = 0;
    drv.cuEventElapsedTime(&ms, a, b);
    times.push_back(ms);
  }
  return median(times);
}

struct Spec {
  std::string label, file, entry, dtype;
  int inputs = 1;
};

Spec parse_spec(const std::string &s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ':');) {
    parts.push_back(part);
  }
  if (parts.size() != 5) {
    std::fprintf(stderr, "bench_ptx_lab: bad spec '%s'\n", s.c_str());
    std::exit(2);
  }
  return {parts[0], parts[1], parts[2], parts[4], std::atoi(parts[3].c_str())};
}

std::vector<char> host_input(const std::string &dtype, int64_t n, unsigned seed) {
  // A cheap generator: 2^26 elements per input must not take seconds.
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 32);
  };
  std::size_t size = dtype == "f32" ? 4 : 8;
  std::vector<char> bytes(static_cast<std::size_t>(n) * size);
  for (int64_t i = 0; i < n; ++i) {
    double unit = next() * 0x1p-32;  // [0, 1)
    if (dtype == "f32") {
      float v = static_cast<float>(0.5 + unit);
      std::memcpy(&bytes[i * 4], &v, 4);
    } else if (dtype == "f64") {
      double v = 0.5 + unit;
      std::memcpy(&bytes[i * 8], &v, 8);
    } else {
      int64_t v = static_cast<int64_t>(next() % 2000) - 1000;
      std::memcpy(&bytes[i * 8], &v, 8);
    }
  }
  return bytes;
}

uint64_t fnv1a(const std::vector<char> &bytes) {
  uint64_t h = 1469598103934665603ull;
  for (char c : bytes) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return h;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_ptx_lab LOG2N LABEL:FILE.ptx:ENTRY:INPUTS:DTYPE...\n");
    return 2;
  }
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == nullptr) {
    std::fprintf(stderr, "bench_ptx_lab: no libcuda.so.1\n");
    return 1;
  }
#define LAB_LOAD(name) drv.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));
  LAB_SYMBOLS(LAB_LOAD)
#undef LAB_LOAD
  check(drv.cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(drv.cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(drv.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  int sms = 0;
  drv.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  const int64_t n = int64_t{1} << std::atoi(argv[1]);

  // Copy bandwidth, as bench_gpu measures it (bytes read + written).
  {
    const std::size_t bytes = std::size_t{1} << 30;
    CUdeviceptr a = 0;
    CUdeviceptr b = 0;
    check(drv.cuMemAlloc_v2(&a, bytes), "cuMemAlloc");
    check(drv.cuMemAlloc_v2(&b, bytes), "cuMemAlloc");
    double ms = time_ms([&] { drv.cuMemcpyDtoD_v2(b, a, bytes); }, 20);
    std::printf("copy %.0f GB/s (read+write, 1 GiB)\n", 2.0 * bytes / (ms * 1e-3) / 1e9);
    drv.cuMemFree_v2(a);
    drv.cuMemFree_v2(b);
  }
  std::printf("%-28s %-7s %6s %8s %6s %9s %8s %16s\n", "label", "shape", "block", "grid", "regs", "ms",
              "GB/s", "hash");
  for (int i = 2; i < argc; ++i) {
    Spec spec = parse_spec(argv[i]);
    std::ifstream in(spec.file);
    std::stringstream text;
    text << in.rdbuf();
    std::string ptx = text.str();
    CUmodule module = nullptr;
    check(drv.cuModuleLoadData(&module, ptx.c_str()), spec.file.c_str());
    CUfunction fn = nullptr;
    check(drv.cuModuleGetFunction(&fn, module, spec.entry.c_str()), spec.entry.c_str());
    int min_grid = 0;
    int block = 0;
    check(drv.cuOccupancyMaxPotentialBlockSize(&min_grid, &block, fn, nullptr, 0, 0), "occupancy");
    int regs = 0;
    drv.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    const std::size_t size = spec.dtype == "f32" ? 4 : 8;
    std::vector<CUdeviceptr> ptrs(spec.inputs + 1);
    for (int k = 0; k <= spec.inputs; ++k) {
      check(drv.cuMemAlloc_v2(&ptrs[k], n * size), "cuMemAlloc");
      if (k < spec.inputs) {
        std::vector<char> host = host_input(spec.dtype, n, 17 + k);
        check(drv.cuMemcpyHtoD_v2(ptrs[k], host.data(), host.size()), "HtoD");
      }
    }
    int64_t n_param = n;
    std::vector<void *> params{&n_param};
    for (CUdeviceptr &p : ptrs) {
      params.push_back(&p);
    }
    struct Shape {
      const char *name;
      int64_t grid;
    };
    const int64_t full = (n + block - 1) / block;
    const int64_t waves16 = std::min<int64_t>(full, std::max<int64_t>(int64_t{min_grid} * 16, sms));
    CUdeviceptr hint = 0;
    std::size_t hint_bytes = 0;  // the launch hint's size is its value plus one
    const std::string symbol = spec.entry + "__launch";
    if (drv.cuModuleGetGlobal_v2(&hint, &hint_bytes, module, symbol.c_str()) != CUDA_SUCCESS) {
      hint_bytes = 0;
    }
    const std::size_t per_thread = hint_bytes > 0 ? hint_bytes - 1 : 0;
    const int64_t rule = per_thread > 0 ? (n + block * static_cast<int64_t>(per_thread) - 1) /
                                              (block * static_cast<int64_t>(per_thread))
                                        : waves16;
    const Shape shapes[] = {{"ufjit", rule},
                            {"waves4", std::min<int64_t>(full, int64_t{min_grid} * 4)},
                            {"waves16", waves16},
                            {"full/2", (full + 1) / 2},
                            {"full/4", (full + 3) / 4},
                            {"full/8", (full + 7) / 8},
                            {"full", full}};
    for (const Shape &shape : shapes) {
      auto launch = [&] {
        drv.cuLaunchKernel(fn, static_cast<unsigned>(shape.grid), 1, 1, static_cast<unsigned>(block), 1, 1, 0,
                           nullptr, params.data(), nullptr);
      };
      const double ms = time_ms(launch, 30);
      std::vector<char> result(n * size);
      check(drv.cuMemcpyDtoH_v2(result.data(), ptrs.back(), result.size()), "DtoH");
      const double bytes = static_cast<double>(spec.inputs + 1) * static_cast<double>(n) * size;
      std::printf("%-28s %-7s %6d %8lld %6d %9.4f %8.0f %016llx\n", spec.label.c_str(), shape.name, block,
                  static_cast<long long>(shape.grid), regs, ms, bytes / (ms * 1e-3) / 1e9,
                  static_cast<unsigned long long>(fnv1a(result)));
      std::fflush(stdout);
    }
    for (CUdeviceptr p : ptrs) {
      drv.cuMemFree_v2(p);
    }
    drv.cuModuleUnload(module);
  }
  return 0;
}
