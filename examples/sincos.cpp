// sincos.ufn: cos(x)^2 + sin(x)^2 == 1 within float32 rounding.
#include <cmath>
#include <cstdio>
#include <vector>

#include "example_util.h"

int main() {
  try {
    ufjit::Runtime rt;
    const ufjit::Ufunc &sincos = rt.load_file(example::ufn_path("sincos.ufn"))["sincos"];
    const int n = 100000;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = -100.0f + 0.002f * static_cast<float>(i);
    ufjit::Array y = example::on_host(rt, sincos(ufjit::view(x)));
    float max_abs = 0;
    for (int i = 0; i < n; ++i) {
      const float c = std::cos(x[static_cast<std::size_t>(i)]);
      const float s = std::sin(x[static_cast<std::size_t>(i)]);
      max_abs = std::fmax(max_abs, std::fabs(y.host_data<float>()[i] - (c * c + s * s)));
    }
    const bool ok = max_abs <= 4 * 0x1p-24f;
    std::printf("sincos: %d elements on %s, max abs difference %.2e: %s\n", n, example::target_name(rt.target()),
                static_cast<double>(max_abs), ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const ufjit::Error &e) {
    std::fprintf(stderr, "sincos: %s\n", e.what());
    return 1;
  }
}
