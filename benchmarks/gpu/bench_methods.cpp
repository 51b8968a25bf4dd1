// Ufunc methods on the GPU: reduce and accumulate over large device arrays,
// timed as benchmarks/compare/compare_methods.py times CuPy's counterparts
// (cupy.add.reduce, cupy.cumsum): wall clock around a synchronous call (the
// call's host overhead included), median of 20 after a warm-up, all inputs
// ones so that every result is checked exactly.
//   reduce:     GB/s = bytes read / time
//   accumulate: GB/s = bytes read + written / time
// Usage: bench_methods [--json OUT] [--quick] [--cpu]   (--cpu: the harness on the CPU target)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <ufjit/cache.h>
#include <ufjit/ufjit.h>

namespace {

using Clock = std::chrono::steady_clock;

struct Case {
  std::string name;     // as compare_methods.py names the CuPy case
  std::string method;   // "reduce" or "accumulate"
  ufjit::DType dtype;
  std::vector<int64_t> shape;
  int axis;             // the method's axis (-1: the last)
};

struct Result {
  double median_ms = 0;
  double min_ms = 0;
  double gbps = 0;
  bool exact = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Whether every element of a host array of ones' reduce/accumulate is what it must be.
bool check(const ufjit::ArrayView &host, const Case &c) {
  const int64_t len = c.shape[static_cast<std::size_t>(c.axis < 0 ? static_cast<int>(c.shape.size()) - 1 : c.axis)];
  int64_t n = 1;
  for (int64_t d : host.shape) n *= d;
  const int64_t inner = c.axis == 0 && c.shape.size() > 1 ? n / len : 1;
  for (int64_t i = 0; i < n; ++i) {
    double got = 0;
    if (c.dtype == ufjit::DType::Float32) {
      got = static_cast<const float *>(host.data)[i];
    } else {
      got = static_cast<double>(static_cast<const int64_t *>(host.data)[i]);
    }
    const double want = c.method == "reduce" ? static_cast<double>(len) : static_cast<double>((i / inner) % len + 1);
    if (got != want) {
      std::fprintf(stderr, "%s: element %lld is %g, expected %g\n", c.name.c_str(), static_cast<long long>(i), got,
                   want);
      return false;
    }
  }
  return true;
}

Result run_case(ufjit::Runtime &rt, const ufjit::Ufunc &add, const Case &c, int reps) {
  int64_t n = 1;
  for (int64_t d : c.shape) n *= d;
  ufjit::Array host = ufjit::Array::host(c.dtype, c.shape);
  if (c.dtype == ufjit::DType::Float32) {
    std::fill_n(host.host_data<float>(), n, 1.0f);
  } else {
    std::fill_n(host.host_data<int64_t>(), n, int64_t{1});
  }
  const bool cuda = rt.target() == ufjit::TargetKind::Cuda;
  ufjit::Array d = cuda ? rt.to_device(host.view()) : std::move(host);
  std::vector<int64_t> out_shape = c.shape;
  if (c.method == "reduce") {
    out_shape.erase(out_shape.begin() + (c.axis < 0 ? static_cast<int>(c.shape.size()) - 1 : c.axis));
  }
  ufjit::Array out = cuda ? rt.device_empty(c.dtype, out_shape) : ufjit::Array::host(c.dtype, out_shape);
  std::function<void()> call;
  ufjit::ReduceOptions reduce;
  reduce.axes = {c.axis};
  ufjit::AccumulateOptions accumulate;
  accumulate.axis = c.axis;
  if (c.method == "reduce") {
    call = [&] { add.reduce(d, reduce, ufjit::out(out)); };
  } else {
    call = [&] { add.accumulate(d, accumulate, ufjit::out(out)); };
  }
  call();  // compile and warm up
  rt.synchronize();
  std::vector<double> ms;
  for (int k = 0; k < reps; ++k) {
    const auto t0 = Clock::now();
    call();
    rt.synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  Result r;
  r.median_ms = median(ms);
  r.min_ms = *std::min_element(ms.begin(), ms.end());
  const double bytes = static_cast<double>(n) * static_cast<double>(ufjit::dtype_size(c.dtype)) *
                       (c.method == "reduce" ? 1.0 : 2.0);
  r.gbps = bytes / r.median_ms / 1e6;
  const ufjit::Array back = cuda ? rt.to_host(out.view()) : ufjit::Array();
  r.exact = check(cuda ? back.view() : out.view(), c);
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  std::string json_path;
  bool quick = false;
  ufjit::TargetKind target = ufjit::TargetKind::Cuda;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--cpu") == 0) {
      target = ufjit::TargetKind::Cpu;
    } else {
      std::fprintf(stderr, "usage: bench_methods [--json OUT] [--quick] [--cpu]\n");
      return 2;
    }
  }
  ufjit::RuntimeOptions options;
  options.target = target;
  ufjit::Runtime rt(options);
  ufjit::Ufunc add = rt.vectorize(R"SRC(
@vectorize(["float32(float32, float32)", "int64(int64, int64)"], identity=0)
def add(a, b):
    return a + b
)SRC");
  const int64_t big = quick ? int64_t{1} << 22 : int64_t{1} << 26;
  const int64_t side = quick ? 2048 : 8192;
  const std::vector<Case> cases = {
      {"reduce_f32_1d", "reduce", ufjit::DType::Float32, {big}, 0},
      {"reduce_i64_1d", "reduce", ufjit::DType::Int64, {big / 2}, 0},
      {"reduce_f32_rows", "reduce", ufjit::DType::Float32, {side, side}, 1},
      {"accumulate_f32_1d", "accumulate", ufjit::DType::Float32, {big / 4}, 0},  // ones: exact below 2^24
      {"accumulate_i64_1d", "accumulate", ufjit::DType::Int64, {big / 2}, 0},
      {"accumulate_f32_rows", "accumulate", ufjit::DType::Float32, {side, side}, 1},
  };
  const int reps = quick ? 5 : 20;
  const ufjit::DriverInfo info = ufjit::device_info();
  const std::string device = info.devices.empty() ? "unknown" : info.devices.front().name;
  std::string json = "{\n \"device\": \"" + device + "\",\n \"cases\": {";
  bool all_exact = true;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case &c = cases[k];
    const Result r = run_case(rt, add, c, reps);
    all_exact = all_exact && r.exact;
    std::printf("%-22s median %8.3f ms  min %8.3f ms  %7.1f GB/s  %s\n", c.name.c_str(), r.median_ms, r.min_ms, r.gbps,
                r.exact ? "exact" : "WRONG");
    char line[256];
    std::snprintf(line, sizeof line, "%s\n  \"%s\": {\"median_ms\": %.4f, \"min_ms\": %.4f, \"GBps\": %.1f, \"exact\": %s}",
                  k == 0 ? "" : ",", c.name.c_str(), r.median_ms, r.min_ms, r.gbps, r.exact ? "true" : "false");
    json += line;
  }
  json += "\n }\n}\n";
  if (!json_path.empty()) {
    std::ofstream(json_path) << json;
  }
  return all_exact ? 0 : 1;
}
