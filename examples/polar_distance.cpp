// polar_distance.ufn: a device helper returning a tuple, checked against a
// float64 C++ loop.
#include <cmath>
#include <cstdio>
#include <vector>

#include "example_util.h"

int main() {
  try {
    ufjit::Runtime rt;
    const ufjit::Ufunc &dist = rt.load_file(example::ufn_path("polar_distance.ufn"))["polar_distance"];
    const int n = 5000;
    std::vector<float> rho1(n), theta1(n), rho2(n), theta2(n);
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      rho1[k] = 1.0f + 0.001f * static_cast<float>(i);
      theta1[k] = 0.01f * static_cast<float>(i);
      rho2[k] = 2.0f;
      theta2[k] = -0.003f * static_cast<float>(i);
    }
    ufjit::Array d = example::on_host(
        rt, dist(ufjit::view(rho1), ufjit::view(theta1), ufjit::view(rho2), ufjit::view(theta2)));

    double max_abs = 0;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const double x1 = rho1[k] * std::cos(static_cast<double>(theta1[k]));
      const double y1 = rho1[k] * std::sin(static_cast<double>(theta1[k]));
      const double x2 = rho2[k] * std::cos(static_cast<double>(theta2[k]));
      const double y2 = rho2[k] * std::sin(static_cast<double>(theta2[k]));
      const double expected = std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
      max_abs = std::fmax(max_abs, std::fabs(d.host_data<float>()[i] - expected));
    }
    const bool ok = max_abs < 1e-5;
    std::printf("polar_distance: %d elements on %s, max abs difference vs float64 %.2e: %s\n", n,
                example::target_name(rt.target()), max_abs, ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const ufjit::Error &e) {
    std::fprintf(stderr, "polar_distance: %s\n", e.what());
    return 1;
  }
}
