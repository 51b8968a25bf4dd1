// Numba sources that compile unchanged (LANGUAGE.md sections 1 and 6): the
// import spellings, module-level signature lists, decorators stacked on a
// jitted function and numba type names, through Runtime::load on the CPU
// target. Expected values are worked out by hand in each test.
#include <gtest/gtest.h>

#include <cmath>

#include <ufjit/ufjit.h>

namespace {

ufjit::Runtime cpu_runtime() { return ufjit::Runtime(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu}); }

TEST(NumbaSource, ModuleLevelSignatureListIsUsedByTheDecorator) {
  ufjit::Runtime rt = cpu_runtime();
  ufjit::UfuncSet set = rt.load(
      "from numba import vectorize\n\n"
      "sigs = ['f4(f4)', 'f8(f8)']\n"
      "one = 'int64(int64)'\n\n"
      "@vectorize(sigs)\ndef twice(x):\n    return 2 * x\n\n"
      "@vectorize([one])\ndef inc(x):\n    return x + 1\n");
  EXPECT_EQ(set["twice"].signatures(), (std::vector<std::string>{"float32(float32)", "float64(float64)"}));
  EXPECT_EQ(set["twice"](1.5).to_vector<double>()[0], 3.0);
  EXPECT_EQ(set["inc"](int64_t{41}).to_vector<int64_t>()[0], 42);
}

TEST(NumbaSource, VectorizeStackedOnAJittedFunction) {
  ufjit::Runtime rt = cpu_runtime();
  ufjit::UfuncSet set = rt.load(
      "from numba import vectorize, njit, cuda\n\n"
      "@vectorize(['float64(float64)'])\n@njit(cache=True)\ndef a(x):\n    return x + 1\n\n"
      "@vectorize(['float64(float64)'], target='cpu')\n@cuda.jit(device=True)\ndef b(x):\n    return x * 3\n");
  EXPECT_EQ(set.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(set["a"](1.0).to_vector<double>()[0], 2.0);
  EXPECT_EQ(set["b"](2.0).to_vector<double>()[0], 6.0);
}

TEST(NumbaSource, JitAboveVectorizeIsAConflict) {
  ufjit::Runtime rt = cpu_runtime();
  try {
    rt.load("from numba import vectorize, njit\n\n@njit\n@vectorize(['float64(float64)'])\ndef a(x):\n    return x\n");
    FAIL() << "expected a CompileError";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("conflicting decorators on 'a'"), std::string::npos) << e.what();
  }
}

TEST(NumbaSource, NumbaCudaImportsAndTypeNames) {
  ufjit::Runtime rt = cpu_runtime();
  ufjit::UfuncSet set = rt.load(
      "from numba.cuda import vectorize\n"
      "from numba import types, float32\n"
      "import numba\n"
      "from numpy import sqrt, pi\n\n"
      "@vectorize([float32(float32), types.float64(types.float64)], target='cuda')\n"
      "def f(x):\n    return sqrt(types.float32(x)) + numba.types.int8(300) + float32(pi)\n");
  EXPECT_EQ(set["f"].signatures(), (std::vector<std::string>{"float32(float32)", "float64(float64)"}));
  // sqrt(float32(4.0)) + int8(300 wraps to 44) + float32(pi), all in float32
  // (the float32 sqrt promoted with an int8 gives float32), returned as float64.
  const float expected = std::sqrt(4.0f) + 44.0f + static_cast<float>(M_PI);
  ufjit::Array x = ufjit::Array::host(ufjit::DType::Float64, {});
  *static_cast<double *>(x.data()) = 4.0;
  ufjit::Array out = set["f"].call_on(ufjit::TargetKind::Cpu, {x.view()});
  EXPECT_EQ(out.to_vector<double>()[0], static_cast<double>(expected));
}

TEST(NumbaSource, CudaTypesAndFp16Imports) {
  ufjit::Runtime rt = cpu_runtime();
  ufjit::UfuncSet set = rt.load(
      "from numba import vectorize\n"
      "from numba.cuda import types, fp16\n"
      "from numba.cuda.fp16 import hmul\n\n"
      "@vectorize([types.float16(types.float16, types.float16)])\n"
      "def f(a, b):\n    return fp16.hadd(hmul(a, b), types.float16(0.5))\n");
  EXPECT_EQ(set["f"].signatures(), (std::vector<std::string>{"float16(float16, float16)"}));
  // 1.5 * 3 + 0.5 = 5 exactly in float16.
  ufjit::Array a = ufjit::Array::host(ufjit::DType::Float16, {});
  ufjit::Array b = ufjit::Array::host(ufjit::DType::Float16, {});
  *static_cast<uint16_t *>(a.data()) = 0x3e00;  // 1.5
  *static_cast<uint16_t *>(b.data()) = 0x4200;  // 3.0
  ufjit::Array out = set["f"].call_on(ufjit::TargetKind::Cpu, {a.view(), b.view()});
  EXPECT_EQ(*static_cast<const uint16_t *>(out.data()), 0x4500);  // 5.0
}

}  // namespace
