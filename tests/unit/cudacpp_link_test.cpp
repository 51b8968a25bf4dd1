// Linked CUDA C++ helpers without a GPU: declare_device + link=[...] typed
// into IR externs (printed, so in every cache key with the helper's content),
// compiled to a cubin with NVRTC and nvJitLink (--emit cubin), and every
// error located in the user's files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "interop/cudacpp/Nvrtc.h"
#include "ufjit/compiler.h"

namespace ufjit::cudacpp {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

const char *kHelper =
    "// helpers.cu: Numba's device ABI\n"
    "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) {\n"
    "  *ret = x * x * x + y;\n"
    "  return 0;\n"
    "}\n"
    "extern \"C\" __device__ double twice(double x) { return 2.0 * x; }\n";

const char *kSource =
    "from numba import cuda, vectorize\n"
    "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
    "twice = cuda.declare_device('twice', 'float64(float64)', abi='c')\n"
    "@vectorize(['float32(float32, float32)'], target='cuda', link=['helpers.cu'])\n"
    "def f(x, y):\n"
    "    return cube_plus(x, y) + 1\n"
    "@vectorize(['float64(float64)'], link=['helpers.cu'])\n"
    "def g(x):\n"
    "    return twice(x) + 0.5\n";

/// A folder with the source and its helper, removed at the end.
class LinkedHelpers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ufjit-cudacpp-link-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write("helpers.cu", kHelper);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string &name, const std::string &text) { std::ofstream(dir_ / name) << text; }
  CompileResult compile_file(const std::string &source, EmitKind emit, const std::string &target = "cuda") {
    write("k.ufn", source);
    CompileRequest request;
    request.source = source;
    request.source_name = (dir_ / "k.ufn").string();
    request.emit = emit;
    request.target = target;
    return compile(request);
  }
  bool have_nvrtc() {
    std::string why;
    return nvrtc_available(&why);
  }
  fs::path dir_;
};

TEST_F(LinkedHelpers, IrListsTheExternsAndTheHelpersContentHash) {
  CompileResult first = compile_file(kSource, EmitKind::Ir);
  ASSERT_TRUE(first.ok) << first.rendered_diagnostics;
  EXPECT_TRUE(contains(first.output, "extern abi=numba cube_plus(float32, float32) -> float32\n")) << first.output;
  EXPECT_TRUE(contains(first.output, "extern abi=c twice(float64) -> float64\n")) << first.output;
  EXPECT_TRUE(contains(first.output, "link helpers.cu bytes=")) << first.output;
  EXPECT_TRUE(contains(first.output, "call cube_plus(")) << first.output;
  write("helpers.cu", std::string(kHelper) + "// one more line\n");
  CompileResult second = compile_file(kSource, EmitKind::Ir);
  ASSERT_TRUE(second.ok);
  EXPECT_NE(first.output, second.output) << "the helper's content is not in the IR (nor in the cache key)";
}

TEST_F(LinkedHelpers, CubinLinksTheHelpersWithNvJitLink) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC cannot be loaded";
  CompileResult r = compile_file(kSource, EmitKind::Cubin);
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_EQ(r.output.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST_F(LinkedHelpers, HelpersCalledFromThePartsOfALongChainLinkToo) {
  // 3,000 branches: the chain's parts are compiled in modules of their own
  // (codegen/nvptx/PtxShards.h), each declaring the helpers it calls; the joined
  // PTX declares them once per part and nvJitLink resolves every one.
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC cannot be loaded";
  std::string source =
      "from numba import cuda, vectorize\n"
      "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
      "@vectorize(['float32(float32, float32)'], target='cuda', link=['helpers.cu'])\n"
      "def f(x, y):\n    r = -1.0\n    if x == 0.0:\n        r = 1.0\n";
  for (int i = 1; i < 3000; ++i) {
    const std::string n = std::to_string(i);
    source +=
        "    elif x == " + n + ".0:\n        r = " + (i % 500 == 0 ? "cube_plus(x, y) + " + n : n) + ".0\n";
  }
  CompileResult r = compile_file(source + "    return r\n", EmitKind::Cubin);
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_EQ(r.output.substr(0, 4), std::string("\x7f"
                                               "ELF",
                                               4));
}

TEST_F(LinkedHelpers, PtxHelperFileLinksToo) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC cannot be loaded";
  write("helpers.ptx", nvrtc_compile({"helpers.cu", kHelper, {}, {}}, "sm_90", NvrtcOutput::Ptx));
  std::string source = kSource;
  for (std::size_t at = source.find("helpers.cu"); at != std::string::npos; at = source.find("helpers.cu")) {
    source.replace(at, 10, "helpers.ptx");
  }
  CompileResult r = compile_file(source, EmitKind::Cubin);
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_EQ(r.output.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST_F(LinkedHelpers, PtxOfALinkedModuleSaysWhatItCanEmit) {
  try {
    compile_file(kSource, EmitKind::Ptx);
    FAIL() << "PTX with undefined helpers was emitted";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "use --emit cubin")) << e.what();
  }
}

TEST_F(LinkedHelpers, CpuTargetIsAnErrorNamingTheHelper) {
  try {
    compile_file(kSource, EmitKind::Llvm, "cpu");
    FAIL() << "the CPU target lowered a CUDA C++ call";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "calls CUDA C++ function 'cube_plus'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "helpers.cu")) << e.what();
    EXPECT_TRUE(contains(e.what(), "only the CUDA target")) << e.what();
  }
}

TEST_F(LinkedHelpers, HelperErrorIsLocatedInTheHelperFile) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC cannot be loaded";
  write("helpers.cu",
        "// helpers.cu\n"
        "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) {\n"
        "  *ret = x * x * x + q;\n"
        "  return 0;\n"
        "}\n");
  try {
    compile_file(kSource, EmitKind::Cubin);
    FAIL() << "a helper with an error compiled";
  } catch (const CompileError &e) {
    EXPECT_TRUE(contains(e.what(), "helpers.cu:3:22: error: identifier \"q\" is undefined")) << e.what();
  }
}

TEST_F(LinkedHelpers, HelperDefinedWithAnotherSignatureIsAnErrorAtTheDeclaration) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC cannot be loaded";
  write("helpers.cu",
        "extern \"C\" __device__ int cube_plus(double *ret, double x, double y) { *ret = x; return 0; }\n"
        "extern \"C\" __device__ double twice(double x) { return 2.0 * x; }\n");
  try {
    compile_file(kSource, EmitKind::Cubin);
    FAIL() << "a mismatched helper linked";
  } catch (const CompileError &e) {
    ASSERT_FALSE(e.diagnostics().empty()) << e.what();
    const DiagnosticMessage &d = e.diagnostics()[0];
    EXPECT_EQ(d.line, 2) << e.what();
    EXPECT_TRUE(contains(d.file, "k.ufn")) << e.what();
    EXPECT_TRUE(contains(d.message, "'cube_plus' is declared float32(float32, float32)")) << e.what();
    EXPECT_TRUE(contains(d.message, "defines it differently")) << e.what();
  }
}

TEST_F(LinkedHelpers, HelperMissingFromTheFilesIsAnErrorAtTheDeclaration) {
  if (!have_nvrtc()) GTEST_SKIP() << "NVRTC cannot be loaded";
  write("helpers.cu", "extern \"C\" __device__ double twice(double x) { return 2.0 * x; }\n");
  try {
    compile_file(kSource, EmitKind::Cubin);
    FAIL() << "a missing helper linked";
  } catch (const CompileError &e) {
    ASSERT_FALSE(e.diagnostics().empty()) << e.what();
    EXPECT_EQ(e.diagnostics()[0].line, 2) << e.what();
    EXPECT_TRUE(contains(e.what(), "CUDA C++ function 'cube_plus' (declare_device) is not defined by helpers.cu"))
        << e.what();
  }
}

TEST_F(LinkedHelpers, MissingLinkFileIsLocatedAtItsName) {
  fs::remove(dir_ / "helpers.cu");
  CompileResult r = compile_file(kSource, EmitKind::Ir);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].line, 4) << r.rendered_diagnostics;
  EXPECT_TRUE(contains(r.rendered_diagnostics, "link file 'helpers.cu' not found")) << r.rendered_diagnostics;
}

TEST_F(LinkedHelpers, CallWithoutLinkFilesIsAnError) {
  CompileResult r = compile_file(
      "from numba import cuda\n"
      "h = cuda.declare_device('h', 'float32(float32)')\n"
      "@vectorize(['float32(float32)'])\n"
      "def f(x):\n"
      "    return h(x)\n",
      EmitKind::Ir);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.rendered_diagnostics, "add link=['helpers.cu']")) << r.rendered_diagnostics;
}

TEST_F(LinkedHelpers, WrongArgumentCountIsLocated) {
  CompileResult r = compile_file(
      "from numba import cuda\n"
      "h = cuda.declare_device('h', 'float32(float32)')\n"
      "@vectorize(['float32(float32)'], link=['helpers.cu'])\n"
      "def f(x):\n"
      "    return h(x, x)\n",
      EmitKind::Ir);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.rendered_diagnostics, ":5:12: error: 'h' (CUDA C++ 'h', float32(float32)) takes 1 argument"))
      << r.rendered_diagnostics;
}

}  // namespace
}  // namespace ufjit::cudacpp
