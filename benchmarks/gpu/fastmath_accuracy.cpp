// Accuracy of float32 math on the GPU, measured: each function as a
// float32 ufunc with and without fastmath=True, on 2^24 inputs (LOG2N) drawn
// from the function's domain, against float64 of the same function (the C
// library's, on the host) rounded to float32. Prints the maximum error in
// float32 ulps of the reference and the maximum absolute error per function
// and mode (docs/FASTMATH.md records a run).
//
// Usage: fastmath_accuracy [LOG2N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ufjit/cache.h"
#include "ufjit/ufjit.h"

namespace {

using namespace ufjit;

struct Case {
  std::string name;  // row label
  std::string expr;  // the ufunc's return expression of x (and y)
  int inputs;
  std::function<double(double, double)> reference;
  std::function<float(std::mt19937_64 &)> draw_x;
  std::function<float(std::mt19937_64 &)> draw_y;
  std::string domain;
  bool device_arrays = false;  // operands copied to the device first (else host arrays, staged)
};

float uniform(std::mt19937_64 &g, double lo, double hi) {
  return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(g));
}

/// Positive normal floats with log2 uniform in [lo, hi).
float log_uniform(std::mt19937_64 &g, double lo, double hi) {
  return static_cast<float>(std::exp2(std::uniform_real_distribution<double>(lo, hi)(g)));
}

/// Any finite float32 (random bits, NaN and inf redrawn).
float any_finite(std::mt19937_64 &g) {
  for (;;) {
    uint32_t bits = static_cast<uint32_t>(g());
    float v = 0;
    std::memcpy(&v, &bits, 4);
    if (std::isfinite(v)) {
      return v;
    }
  }
}

/// One float32 ulp at the magnitude of `ref` (a float64 reference value).
double ulp_of(double ref) {
  float r = static_cast<float>(std::fabs(ref));
  if (r == 0.0f || !std::isfinite(r)) {
    return std::ldexp(1.0, -149);
  }
  int e = 0;
  std::frexp(r, &e);  // r = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, std::max(e - 24, -149));
}

struct Errors {
  double max_ulp = 0;
  double max_abs = 0;
  float worst_x = 0;
  float worst_got = 0;
  double worst_ref = 0;
  int64_t worst_i = -1;
  int64_t compared = 0;
};

Errors measure(Runtime &rt, const Case &c, bool fast, int64_t n) {
  std::string params = c.inputs == 1 ? "x" : "x, y";
  std::string sig = c.inputs == 1 ? "float32(float32)" : "float32(float32, float32)";
  std::string source = "import math\nfrom numba import vectorize\n@vectorize([\"" + sig +
                       "\"], target=\"cuda\"" + (fast ? ", fastmath=True" : "") + ")\ndef f(" + params +
                       "):\n    return " + c.expr + "\n";
  Ufunc f = rt.vectorize(source);
  std::mt19937_64 gen(42);
  Array x = Array::host(DType::Float32, {n});
  Array y = Array::host(DType::Float32, {n});
  for (int64_t i = 0; i < n; ++i) {
    x.host_data<float>()[i] = c.draw_x(gen);
    y.host_data<float>()[i] = c.inputs == 2 ? c.draw_y(gen) : 0.0f;
  }
  std::vector<Operand> ops{Operand(x.view())};
  if (c.inputs == 2) {
    ops.emplace_back(y.view());
  }
  Array r;
  if (c.device_arrays) {
    std::vector<Array> dev;
    std::vector<Operand> dev_ops;
    for (const Operand &op : ops) {
      dev.push_back(rt.to_device(op.array));
    }
    for (const Array &a : dev) {
      dev_ops.emplace_back(a.view());
    }
    r = rt.to_host(f.call(dev_ops).view());
  } else {
    r = f.call(ops);
  }
  Errors err;
  const float *xs = x.host_data<float>();
  const float *ys = y.host_data<float>();
  const float *rs = r.host_data<float>();
  for (int64_t i = 0; i < n; ++i) {
    double ref = c.reference(xs[i], ys[i]);
    float ref32 = static_cast<float>(ref);
    if (!std::isfinite(ref32) || std::fabs(ref) < 0x1p-126) {
      continue;  // overflow, or a subnormal result (flushed under fastmath)
    }
    ++err.compared;
    double got = rs[i];
    double abs_err = std::isnan(got) ? INFINITY : std::fabs(got - ref);
    double ulps = abs_err / ulp_of(ref);
    if (ulps > err.max_ulp) {
      err.max_ulp = ulps;
      err.worst_x = xs[i];
      err.worst_got = rs[i];
      err.worst_ref = ref;
      err.worst_i = i;
    }
    err.max_abs = std::max(err.max_abs, abs_err);
  }
  return err;
}

}  // namespace

int main(int argc, char **argv) {
  const int64_t n = int64_t{1} << (argc > 1 ? std::atoi(argv[1]) : 24);
  const double pi = 3.14159265358979323846;
  std::vector<Case> cases = {
      {"sin", "math.sin(x)", 1, [](double x, double) { return std::sin(x); },
       [&](auto &g) { return uniform(g, -pi, pi); }, nullptr, "[-pi, pi]"},
      {"cos", "math.cos(x)", 1, [](double x, double) { return std::cos(x); },
       [&](auto &g) { return uniform(g, -pi, pi); }, nullptr, "[-pi, pi]"},
      {"sin", "math.sin(x)", 1, [](double x, double) { return std::sin(x); },
       [](auto &g) { return uniform(g, -1e5, 1e5); }, nullptr, "[-1e5, 1e5]"},
      {"cos", "math.cos(x)", 1, [](double x, double) { return std::cos(x); },
       [](auto &g) { return uniform(g, -1e5, 1e5); }, nullptr, "[-1e5, 1e5]"},
      {"sin", "math.sin(x)", 1, [](double x, double) { return std::sin(x); },
       [](auto &g) { return any_finite(g); }, nullptr, "all finite floats"},
      {"cos", "math.cos(x)", 1, [](double x, double) { return std::cos(x); },
       [](auto &g) { return any_finite(g); }, nullptr, "all finite floats"},
      {"tan", "math.tan(x)", 1, [](double x, double) { return std::tan(x); },
       [](auto &g) { return uniform(g, -1.5, 1.5); }, nullptr, "[-1.5, 1.5]"},
      {"exp", "math.exp(x)", 1, [](double x, double) { return std::exp(x); },
       [](auto &g) { return uniform(g, -87, 88); }, nullptr, "[-87, 88]"},
      {"exp2", "math.exp2(x)", 1, [](double x, double) { return std::exp2(x); },
       [](auto &g) { return uniform(g, -126, 127); }, nullptr, "[-126, 127]"},
      {"log", "math.log(x)", 1, [](double x, double) { return std::log(x); },
       [](auto &g) { return log_uniform(g, -126, 128); }, nullptr, "normal x > 0"},
      {"log2", "math.log2(x)", 1, [](double x, double) { return std::log2(x); },
       [](auto &g) { return log_uniform(g, -126, 128); }, nullptr, "normal x > 0"},
      {"log10", "math.log10(x)", 1, [](double x, double) { return std::log10(x); },
       [](auto &g) { return log_uniform(g, -126, 128); }, nullptr, "normal x > 0"},
      {"pow", "math.pow(x, y)", 2, [](double x, double y) { return std::pow(x, y); },
       [](auto &g) { return uniform(g, 0.01, 10); }, [](auto &g) { return uniform(g, -10, 10); },
       "x in [0.01, 10], y in [-10, 10]"},
      {"sqrt", "math.sqrt(x)", 1, [](double x, double) { return std::sqrt(x); },
       [](auto &g) { return log_uniform(g, -126, 128); }, nullptr, "normal x > 0"},
      {"tanh", "math.tanh(x)", 1, [](double x, double) { return std::tanh(x); },
       [](auto &g) { return uniform(g, -10, 10); }, nullptr, "[-10, 10]"},
      {"tanh", "math.tanh(x)", 1, [](double x, double) { return std::tanh(x); },
       [](auto &g) { return uniform(g, -10, 10); }, nullptr, "[-10, 10]", true},
      {"sin", "math.sin(x)", 1, [](double x, double) { return std::sin(x); },
       [](auto &g) { return uniform(g, -10, 10); }, nullptr, "[-10, 10]", true},
      {"x / y", "x / y", 2, [](double x, double y) { return x / y; },
       [](auto &g) { return log_uniform(g, -60, 60); }, [](auto &g) { return log_uniform(g, -60, 60); },
       "log2|x|, log2|y| in [-60, 60]"},
      {"1 / x", "1.0 / x", 1, [](double x, double) { return 1.0 / x; },
       [](auto &g) { return log_uniform(g, -125, 125); }, nullptr, "log2 x in [-125, 125]"},
  };
  try {
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    Runtime rt(options);
    DriverInfo info = device_info();
    std::printf("device %s, %lld inputs per function\n",
                info.devices.empty() ? "?" : info.devices[0].name.c_str(), static_cast<long long>(n));
    std::printf(
        "| function | domain | strict max ulp | fastmath max ulp | fastmath max abs error | strict worst: i, "
        "x, "
        "got, float64 | fastmath worst: i, x, got, float64 |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const Case &c : cases) {
      Errors strict = measure(rt, c, false, n);
      Errors fast = measure(rt, c, true, n);
      std::printf("| %s | %s%s | %.2f | %.2f | %.3g | %lld, %.9g, %.9g, %.9g | %lld, %.9g, %.9g, %.9g |\n",
                  c.name.c_str(), c.domain.c_str(), c.device_arrays ? " (device arrays)" : "", strict.max_ulp,
                  fast.max_ulp, fast.max_abs, static_cast<long long>(strict.worst_i), strict.worst_x,
                  strict.worst_got, strict.worst_ref, static_cast<long long>(fast.worst_i), fast.worst_x,
                  fast.worst_got, fast.worst_ref);
      std::fflush(stdout);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "fastmath_accuracy: %s\n", e.what());
    return 1;
  }
  return 0;
}
