// The README's main job: gaussian_pdf.ufn over one million float32 values on
// the default target (the GPU where there is one, else the CPU). Prints the
// target, the time of the first call (compile + run) and of a warm call, a
// checksum, and the largest error against a float64 reference.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "example_util.h"

int main() {
  try {
    ufjit::Runtime rt;
    const ufjit::Ufunc &gauss = rt.load_file(example::ufn_path("gaussian_pdf.ufn"))["gaussian_pdf"];

    const std::size_t n = 1000000;
    std::vector<float> x(n);
    std::mt19937 rng(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float &v : x) v = normal(rng);
    std::vector<float> y(n);
    const float mean = 0.0f;
    const float sigma = 1.0f;

    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    gauss(ufjit::view(x), mean, sigma, ufjit::out(y));  // compiles, then runs
    const auto t1 = Clock::now();
    gauss(ufjit::view(x), mean, sigma, ufjit::out(y));  // warm
    const auto t2 = Clock::now();

    double checksum = 0;
    double max_abs = 0;
    double max_rel = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = (static_cast<double>(x[i]) - mean) / sigma;
      const double reference = std::exp(-0.5 * t * t) / (sigma * std::sqrt(2 * M_PI));
      checksum += y[i];
      max_abs = std::fmax(max_abs, std::fabs(y[i] - reference));
      max_rel = std::fmax(max_rel, std::fabs(y[i] - reference) / reference);
    }
    const double first_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const double warm_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    std::printf("main_job: gaussian_pdf on %zu float32 values, target %s\n", n, example::target_name(rt.target()));
    std::printf("  first call (compile + run) %.2f ms, warm call %.3f ms (%.2f Gelem/s)\n", first_ms, warm_ms,
                static_cast<double>(n) / (warm_ms * 1e6));
    std::printf("  checksum %.6f, max error vs float64: abs %.3e, rel %.3e\n", checksum, max_abs, max_rel);
    const bool ok = max_rel < 1e-5;
    std::printf("  %s\n", ok ? "OK" : "ERROR TOO LARGE");
    return ok ? 0 : 1;
  } catch (const ufjit::Error &e) {
    std::fprintf(stderr, "main_job: %s\n", e.what());
    return 1;
  }
}
