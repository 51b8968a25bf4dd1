// add.reduce over 2^26 float32 on a device array: the median time of 20
// calls after a warm-up, and the bandwidth it reaches (bytes read / time).
// Compare with benchmarks/gpu/bench_reduce_cupy.py (cupy.add.reduce, sum).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <ufjit/ufjit.h>

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : (int64_t{1} << 26);
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cuda});
  ufjit::Ufunc add = rt.vectorize(R"SRC(
@vectorize(["float32(float32, float32)", "int32(int32, int32)"], identity=0)
def add(a, b):
    return a + b
)SRC");
  std::vector<float> host(static_cast<std::size_t>(n), 1.0f);
  ufjit::Array d = rt.to_device(host);
  ufjit::Array out = rt.device_empty(ufjit::DType::Float32, {});
  add.reduce(d, {}, ufjit::out(out));  // compile and warm up
  std::vector<double> ms;
  for (int k = 0; k < 20; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    add.reduce(d, {}, ufjit::out(out));
    rt.synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  const float sum = rt.to_host(out).to_vector<float>()[0];
  std::printf("ufjit add.reduce float32 n=%lld: median %.3f ms, min %.3f ms, %.1f GB/s, sum %.1f\n",
              static_cast<long long>(n), median, ms.front(), static_cast<double>(n) * 4 / median / 1e6, sum);
  return 0;
}
