// Shared helpers of the GPU suite: a fixture that skips without a device,
// random inputs, and the driver's free-memory figure (through dlopen, as the
// suite links only libufjit.so).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ufjit/cache.h"
#include "ufjit/ufjit.h"

namespace ufjit::gpu_testing {

/// A Runtime on the CUDA target; every test skips with a one-line reason
/// when there is no usable GPU.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    info_ = device_info();
    if (!info_.available) {
      GTEST_SKIP() << "no CUDA device: " << info_.reason;
    }
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    rt_ = std::make_unique<Runtime>(options);
  }
  Runtime &rt() { return *rt_; }
  DriverInfo info_;
  std::unique_ptr<Runtime> rt_;
};

/// The cache's cubins: every entry but the source indexes, which list the
/// cubins a source ran with (runtime/cache/SourceIndex.h).
inline std::vector<CacheEntryInfo> cached_cubins() {
  std::vector<CacheEntryInfo> cubins;
  for (CacheEntryInfo &entry : list_cache()) {
    if (entry.label.rfind("source index ", 0) != 0) {
      cubins.push_back(std::move(entry));
    }
  }
  return cubins;
}

/// Uniform values in [lo, hi), never all zeros.
template <typename T>
std::vector<T> random_values(std::size_t n, unsigned seed, double lo, double hi) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (T &x : v) {
    x = static_cast<T>(dist(gen));
  }
  return v;
}

/// A device array's elements, copied to the host.
template <typename T>
std::vector<T> download(Runtime &rt, const ArrayView &device) {
  Array host = rt.to_host(device);
  return host.to_vector<T>();
}

/// The driver's free and total device memory (the calling thread must have
/// the context current, which any ufjit call on it ensures).
inline bool device_memory(std::size_t *free_bytes, std::size_t *total_bytes) {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) {
    return false;
  }
  using MemGetInfo = int (*)(std::size_t *, std::size_t *);
  auto fn = reinterpret_cast<MemGetInfo>(dlsym(handle, "cuMemGetInfo_v2"));
  bool ok = fn != nullptr && fn(free_bytes, total_bytes) == 0;
  dlclose(handle);
  return ok;
}

inline const char *kAddSource = R"UFN(
from numba import vectorize

@vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def add(x, y):
    return x + y
)UFN";

inline const char *kAddI64Source = R"UFN(
@vectorize(["int64(int64, int64)"])
def add_i64(x, y):
    return x + y
)UFN";

inline const char *kAddI8Source = R"UFN(
@vectorize(["int8(int8, int8)"])
def add_i8(x, y):
    return x + y
)UFN";

inline const char *kGaussSource = R"UFN(
import math
SQRT_2PI = 2.5066282746310002

@vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"], target="cuda")
def gauss(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)
)UFN";

inline double gauss_ref(double x, double mean, double sigma) {
  const double t = (x - mean) / sigma;
  return std::exp(-0.5 * t * t) / (sigma * 2.5066282746310002);
}

}  // namespace ufjit::gpu_testing
