// gaussian_pdf.ufn: a float32 Gaussian, checked against a float32 C++ loop.
#include <cmath>
#include <cstdio>
#include <vector>

#include "example_util.h"

int main() {
  try {
    ufjit::Runtime rt;
    const ufjit::Ufunc &gauss = rt.load_file(example::ufn_path("gaussian_pdf.ufn"))["gaussian_pdf"];
    const int n = 10000;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = -5.0f + 10.0f * static_cast<float>(i) / n;
    const float mean = 0.5f;
    const float sigma = 1.25f;

    ufjit::Array y = example::on_host(rt, gauss(ufjit::view(x), mean, sigma));

    const float sqrt_2pi = static_cast<float>(std::sqrt(2 * M_PI));
    float max_rel = 0;
    for (int i = 0; i < n; ++i) {
      const float t = (x[static_cast<std::size_t>(i)] - mean) / sigma;
      const float expected = std::exp(-0.5f * t * t) / (sigma * sqrt_2pi);
      const float actual = y.host_data<float>()[i];
      max_rel = std::fmax(max_rel, std::fabs(actual - expected) / expected);
    }
    const bool ok = max_rel < 1e-5f;
    std::printf("gaussian_pdf: %d elements on %s, max relative difference %.2e: %s\n", n,
                example::target_name(rt.target()), static_cast<double>(max_rel), ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const ufjit::Error &e) {
    std::fprintf(stderr, "gaussian_pdf: %s\n", e.what());
    return 1;
  }
}
