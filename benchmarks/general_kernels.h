// Six non-seed kernels for first-call (compile speed) measurements, one of
// each kind of code a seed kernel does not exercise: a `while` loop over
// int64, if/elif with float64 sqrt/log, int64 `//` and `%`, float32 `**`,
// complex128 cmath.exp and a `for` loop (issue 13, item 6). Shared by
// benchmarks/bench_compile.cpp (the compile's parts, on the development
// machine) and benchmarks/gpu/bench_first_call.cpp (the whole first call).
#pragma once

#include <string>
#include <vector>

#include "ufjit/dtype.h"

namespace ufjit::bench {

struct GeneralKernel {
  std::string name;
  std::string source;
  std::vector<DType> inputs;  // the signature's operand types
};

inline std::vector<GeneralKernel> general_kernels() {
  return {
      {"collatz_i64",
       "@vectorize([\"int64(int64)\"])\ndef f(n):\n    steps = 0\n    n = abs(n) + 1\n"
       "    while n != 1 and steps < 1000:\n        if n % 2 == 0:\n            n = n // 2\n"
       "        else:\n            n = 3 * n + 1\n        steps += 1\n    return steps\n",
       {DType::Int64}},
      {"piecewise_f64",
       "import math\n@vectorize([\"float64(float64, float64)\"])\ndef f(x, y):\n    if x < 0.0:\n"
       "        return math.sqrt(-x) + y\n    elif x < 1.0:\n        return math.log(x + 1.0) * y\n"
       "    elif x < 10.0:\n        return math.sqrt(x) * math.log(y + 2.0)\n    else:\n        return x - y\n",
       {DType::Float64, DType::Float64}},
      {"divmod_i64",
       "@vectorize([\"int64(int64, int64)\"])\ndef f(a, b):\n    b = b if b != 0 else 7\n"
       "    return (a // b) * 3 + a % b\n",
       {DType::Int64, DType::Int64}},
      {"pow_f32",
       "@vectorize([\"float32(float32, float32)\"])\ndef f(x, y):\n    return x ** y + x ** 2.5\n",
       {DType::Float32, DType::Float32}},
      {"cexp_c128",
       "import cmath\n@vectorize([\"complex128(complex128)\"])\ndef f(z):\n    return cmath.exp(z) * z\n",
       {DType::Complex128}},
      {"poly_for_f64",
       "@vectorize([\"float64(float64)\"])\ndef f(x):\n    acc = 0.0\n    for i in range(8):\n"
       "        acc = acc * x + (i + 1)\n    return acc\n",
       {DType::Float64}},
  };
}

}  // namespace ufjit::bench
