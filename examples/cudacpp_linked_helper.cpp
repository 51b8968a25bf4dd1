// cudacpp_linked_helper: a ufunc that calls CUDA C++ (CUDA C++ interop,
// direction "CUDA C++ -> ufjit"). examples/cudacpp/cube_plus.ufn declares two
// helpers with declare_device and links examples/cudacpp/helpers.cu, which
// ufjit compiles with NVRTC and links with nvJitLink into its kernel. The
// result is checked against a C++ loop.
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
    for (std::size_t i = 0; i < n; ++i) {
      const double expected = 0.5 * (double(x[i]) * x[i] * x[i] + y[i]) + 1.0;
      if (std::abs(out[i] - expected) > 1e-5 * std::abs(expected) + 1e-6) {
        if (++bad <= 5) {
          std::fprintf(stderr, "mismatch at %zu: got %.9g expected %.9g\n", i, out[i], expected);
        }
      }
    }
    std::printf("cudacpp_linked_helper: %zu elements through CUDA C++ helpers: %s\n", n,
                bad == 0 ? "all match" : "MISMATCH");
    return bad == 0 ? 0 : 1;
  } catch (const ufjit::NoDeviceError &e) {
    std::printf("cudacpp_linked_helper: skipped: %s\n", e.what());
    return 77;
  } catch (const ufjit::Error &e) {
    const std::string what = e.what();
    if (what.find("is not available") != std::string::npos) {
      std::printf("cudacpp_linked_helper: skipped: %s\n", e.what());
      return 77;
    }
    std::fprintf(stderr, "cudacpp_linked_helper: %s\n", e.what());
    return 1;
  }
}
