// The seed kernels of the Numba tutorials, as in the anchor measurements
// (shared/anchors/bench_anchors.py): the same signatures, bodies and inputs.
#pragma once

#include <string>
#include <vector>

#include "ufjit/dtype.h"

namespace ufjit::bench {

struct BenchKernel {
  std::string name;
  std::string source;
  int inputs = 1;
  DType dtype = DType::Float32;
};

inline std::vector<BenchKernel> bench_kernels() {
  const std::string gauss_body =
      "def f(x, mean, sigma):\n"
      "    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)\n";
  return {
      {"add_i64", "@vectorize([\"int64(int64, int64)\"])\ndef f(x, y):\n    return x + y\n", 2, DType::Int64},
      {"sincos_f32",
       "import math\n@vectorize([\"float32(float32)\"])\ndef f(x):\n    return math.cos(x) ** 2 + math.sin(x) ** 2\n", 1,
       DType::Float32},
      {"gauss_f32",
       "import math\nSQRT_2PI = 2.5066282746310002\n@vectorize([\"float32(float32, float32, float32)\"])\n" + gauss_body, 3,
       DType::Float32},
      {"polar_f32",
       "import math\nfrom numba import cuda\n\n@cuda.jit(device=True)\ndef polar_to_cartesian(rho, theta):\n"
       "    x = rho * math.cos(theta)\n    y = rho * math.sin(theta)\n    return x, y\n\n"
       "@vectorize([\"float32(float32, float32, float32, float32)\"])\n"
       "def f(rho1, theta1, rho2, theta2):\n"
       "    x1, y1 = polar_to_cartesian(rho1, theta1)\n"
       "    x2, y2 = polar_to_cartesian(rho2, theta2)\n"
       "    return ((x1 - x2)**2 + (y1 - y2)**2)**0.5\n",
       4, DType::Float32},
      {"gauss_f64",
       "import math\nSQRT_2PI = 2.5066282746310002\n@vectorize([\"float64(float64, float64, float64)\"])\n" + gauss_body, 3,
       DType::Float64},
  };
}

/// The same kernels with `fastmath=True` in the decorator, named "<name>_fast"
/// (CUDA's --use_fast_math on the GPU: docs/FASTMATH.md).
inline std::vector<BenchKernel> bench_kernels_fastmath() {
  std::vector<BenchKernel> kernels = bench_kernels();
  for (BenchKernel &k : kernels) {
    k.name += "_fast";
    const std::size_t signatures_end = k.source.find("\"])");  // @vectorize(["..."])
    k.source.insert(signatures_end + 2, ", fastmath=True");
  }
  return kernels;
}

}  // namespace ufjit::bench
