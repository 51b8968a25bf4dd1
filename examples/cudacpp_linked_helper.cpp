// cudacpp_linked_helper: a ufunc that calls CUDA C++ (CUDA C++ interop,
// direction "CUDA C++ -> ufjit"). examples/cudacpp/cube_plus.ufn declares two
// helpers with declare_device and links examples/cudacpp/helpers.cu, which
// ufjit compiles with NVRTC and links with nvJitLink into its kernel; then a
// ufunc from a source string links the same file through VectorizeOptions.
// The results are checked against C++ loops.
// Exit status: 0 the results match; 1 a mismatch or error; 77 skipped (no
// CUDA device, or no NVRTC/nvJitLink): CTest's SKIP_RETURN_CODE.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "example_util.h"
#include "ufjit/ufjit.h"

int main() {
  try {
    ufjit::RuntimeOptions options;
    options.target = ufjit::TargetKind::Cuda;
    ufjit::Runtime rt(options);
    // Relative link=[...] names are found beside the .ufn file.
    ufjit::UfuncSet set = rt.load_file(example::ufn_path("cudacpp/cube_plus.ufn"));
    ufjit::Ufunc f = set["cube_plus_scaled"];
    const std::size_t n = (1 << 20) + 3;
    std::vector<float> x(n);
    std::vector<float> y(n);
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = -2.0f + 4.0f * static_cast<float>(i) / static_cast<float>(n);
      y[i] = static_cast<float>(i % 7);
    }
    f(ufjit::view(x), ufjit::view(y), ufjit::out(out));
    int bad = 0;
    auto check = [&](const char *what, auto expected_at) {
      for (std::size_t i = 0; i < n; ++i) {
        const double expected = expected_at(double(x[i]), double(y[i]));
        if (std::abs(out[i] - expected) > 1e-5 * std::abs(expected) + 1e-6 && ++bad <= 5) {
          std::fprintf(stderr, "%s: mismatch at %zu: got %.9g expected %.9g\n", what, i, out[i], expected);
        }
      }
    };
    check("cube_plus_scaled", [](double a, double b) { return 0.5 * (a * a * a + b) + 1.0; });

    // A ufunc from a source string has no file to be beside: the helper
    // files come with VectorizeOptions (relative ones from base_dir).
    const std::string source =
        "cube_plus = declare_device('cube_plus', 'float32(float32, float32)')\n"
        "def cube_plus_one(x, y):\n"
        "    return cube_plus(x, y) + 1.0\n";
    ufjit::Ufunc g = rt.vectorize(source, {"float32(float32, float32)"},
                                  {.link = {"helpers.cu"}, .base_dir = example::ufn_path("cudacpp")});
    g(ufjit::view(x), ufjit::view(y), ufjit::out(out));
    check("cube_plus_one", [](double a, double b) { return a * a * a + b + 1.0; });
    std::printf("cudacpp_linked_helper: %zu elements through CUDA C++ helpers, twice: %s\n", n,
                bad == 0 ? "all match" : "MISMATCH");
    return bad == 0 ? 0 : 1;
  } catch (const ufjit::Error &e) {
    return example::gpu_example_error("cudacpp_linked_helper", e);
  }
}
