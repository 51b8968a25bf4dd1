// cudacpp_elementwise: a CUDA C++ elementwise kernel as CuPy's
// ElementwiseKernel writes it (Runtime::elementwise), run by ufjit's runtime:
// a type placeholder bound by the operands (float32 here), a preamble helper,
// a raw parameter indexed with `i` and `_ind.size()`, and broadcasting of a
// row against a matrix. The result is checked against a C++ loop.
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
    ufjit::ElementwiseOptions eo;
    eo.preamble = "__device__ float sq(float v) { return v * v; }";
    // z = (x - y)^2 + the mirror element of w (a raw parameter).
    ufjit::Ufunc k = rt.elementwise("T x, T y, raw T w", "T z", "z = sq(x - y) + w[_ind.size() - 1 - i]",
                                    "squared_diff_mirror", eo);
    const int64_t rows = 1000;
    const int64_t cols = 1027;
    std::vector<float> x(static_cast<std::size_t>(rows * cols));
    std::vector<float> y(static_cast<std::size_t>(cols));  // broadcast over rows
    std::vector<float> w(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i % 101) * 0.25f;
      w[i] = static_cast<float>(i % 13);
    }
    for (std::size_t c = 0; c < y.size(); ++c) {
      y[c] = static_cast<float>(c % 17);
    }
    std::vector<float> z(x.size());
    k(ufjit::view(x.data(), {rows, cols}), ufjit::view(y), ufjit::view(w),
      ufjit::out(ufjit::view(z.data(), {rows, cols})));
    int bad = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      const float d = x[i] - y[i % static_cast<std::size_t>(cols)];
      const float expected = d * d + w[z.size() - 1 - i];
      if (z[i] != expected && ++bad <= 5) {
        std::fprintf(stderr, "mismatch at %zu: got %.9g expected %.9g\n", i, z[i], expected);
      }
    }
    std::printf("cudacpp_elementwise: %zu elements through a CUDA C++ elementwise kernel: %s\n", z.size(),
                bad == 0 ? "all match" : "MISMATCH");
    return bad == 0 ? 0 : 1;
  } catch (const ufjit::Error &e) {
    return example::gpu_example_error("cudacpp_elementwise", e, "runs on a GPU only");
  }
}
