// CUDA C++ elementwise kernels (Runtime::elementwise) without a GPU: the
// parameter lists parsed and their mistakes located, the entry source for
// each kernel variant compiled by NVRTC and linked to an sm_90 cubin, NVRTC's
// errors located in the user's strings, and the CPU target refused.
#include <gtest/gtest.h>

#include "codegen/kernel/KernelABI.h"
#include "interop/cudacpp/Elementwise.h"
#include "interop/cudacpp/Nvrtc.h"
#include "tests/unit/cudacpp_test_util.h"
#include "ufjit/ufjit.h"

namespace ufjit::cudacpp {
namespace {

using testing::contains;

TEST(Elementwise, ParsesTypesPlaceholdersAndRawParameters) {
  const std::vector<ElementwiseParam> in = parse_elementwise_params("float32 x,  T y, raw U w", "<in>", false);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].name, "x");
  EXPECT_EQ(in[0].type, "float32");
  EXPECT_FALSE(in[0].placeholder);
  EXPECT_EQ(in[1].type, "T");
  EXPECT_TRUE(in[1].placeholder);
  EXPECT_TRUE(in[2].raw);
  EXPECT_EQ(in[2].name, "w");
  EXPECT_TRUE(parse_elementwise_params("", "<in>", false).empty());
}

void expect_located(const std::string &in, const std::string &out, const std::string &located) {
  try {
    parse_elementwise(in, out, "z = x;", "k", {});
    FAIL() << "accepted '" << in << "' -> '" << out << "'";
  } catch (const CompileError &e) {
    EXPECT_TRUE(contains(e.what(), located)) << e.what();
  }
}

TEST(Elementwise, BadParameterListsAreLocatedErrors) {
  expect_located("float32 x, float32", "float32 z", "<elementwise k in_params>:1:12: error: a parameter is");
  expect_located("float32 x, float32 x", "float32 z", "<elementwise k in_params>:1:20: error: a second parameter");
  expect_located("float32 x", "raw float32 z", "<elementwise k out_params>:1:1: error: raw outputs");
  expect_located("complex64 x", "float32 z", "<elementwise k in_params>:1:1: error: CUDA C++ elementwise");
  expect_located("float32 i", "float32 z", "<elementwise k in_params>:1:9: error: 'i' is reserved");
  expect_located("float32 x", "", "<elementwise k out_params>:1:1: error: an elementwise kernel needs");
  expect_located("float32 x,", "float32 z", "<elementwise k in_params>:1:11: error: expected a parameter");
}

codegen::KernelVariant variant(codegen::Layout layout, uint32_t mask = 0) {
  codegen::KernelVariant v;
  v.layout = layout;
  v.scalar_mask = mask;
  return v;
}

TEST(Elementwise, EveryVariantCompilesToAnSm90CubinWithItsEntry) {
  SKIP_WITHOUT_NVRTC();
  ElementwiseOptions options;
  options.preamble = "template <typename V> __device__ V twice(V v) { return v + v; }";
  options.loop_prep = "const T zero = T(0);";
  const ElementwiseDef def =
      parse_elementwise("T x, T y, raw T w", "T z", "z = twice(x - y) + w[i % w.size()] + zero + _ind.size();",
                        "sq", options);
  const std::vector<std::pair<std::string, DType>> types = {{"T", DType::Float32}};
  for (const codegen::KernelVariant &v :
       {variant(codegen::Layout::Contiguous, 0xc), variant(codegen::Layout::Strided, 0xd)}) {
    const std::string source = elementwise_source(def, types, "sq_entry_" + v.suffix(), v);
    EXPECT_TRUE(contains(source, "typedef float T;")) << source;
    const std::string cubin = compile_elementwise(def, source, "sm_90");
    ASSERT_GT(cubin.size(), 4u);
    EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
    EXPECT_TRUE(contains(cubin, "sq_entry_" + v.suffix())) << "entry name missing from the cubin";
  }
  const ElementwiseDef two = parse_elementwise("float64 x", "float64 q, int32 r", "q = x / 2; r = (int)x % 7;",
                                               "qr", {});
  const std::string source = elementwise_source(two, {}, "qr_gufunc", codegen::gufunc_variant());
  EXPECT_TRUE(contains(source, "double &q = ")) << source;
  EXPECT_TRUE(contains(source, "int &r = ")) << source;
  EXPECT_EQ(compile_elementwise(two, source, "sm_90").substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST(Elementwise, NvrtcErrorsAreLocatedInTheOperationAndPreamble) {
  SKIP_WITHOUT_NVRTC();
  const ElementwiseDef def = parse_elementwise("float32 x, float32 y", "float32 z", "z = (x - q) * (x - y)",
                                               "squared_diff", {});
  const std::string source = elementwise_source(def, {}, "e", variant(codegen::Layout::Contiguous));
  try {
    compile_elementwise(def, source, "sm_90");
    FAIL() << "NVRTC accepted an undefined identifier";
  } catch (const CompileError &e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].file, "<elementwise squared_diff>");
    EXPECT_TRUE(contains(e.what(), "<elementwise squared_diff>:1:10: error: identifier \"q\" is undefined\n"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "z = (x - q) * (x - y)\n")) << e.what();
  }
  ElementwiseOptions options;
  options.preamble = "__device__ float h(float v) {\n  return v +* 1;\n}";
  const ElementwiseDef bad = parse_elementwise("float32 x", "float32 z", "z = h(x);", "pre", options);
  try {
    compile_elementwise(bad, elementwise_source(bad, {}, "e", variant(codegen::Layout::Contiguous)), "sm_90");
    FAIL() << "NVRTC accepted a bad preamble";
  } catch (const CompileError &e) {
    EXPECT_TRUE(contains(e.what(), "<elementwise pre preamble>:2:")) << e.what();
  }
}

TEST(Elementwise, TheCpuTargetIsAClearError) {
  RuntimeOptions options;
  options.target = TargetKind::Cpu;
  Runtime rt(options);
  Ufunc k = rt.elementwise("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff");
  EXPECT_EQ(k.name(), "squared_diff");
  std::vector<float> x = {1, 2}, y = {3, 4};
  try {
    k(x, y);
    FAIL() << "the CPU ran CUDA C++";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "'squared_diff' is a CUDA C++ elementwise kernel: it runs on a GPU only"))
        << e.what();
  }
}

}  // namespace
}  // namespace ufjit::cudacpp
