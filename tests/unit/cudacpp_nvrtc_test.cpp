// NVRTC and nvJitLink without a GPU: CUDA C++ compiled to PTX, LTO-IR and
// cubin for sm_90, linked with nvJitLink (LTO), NVRTC's log rewritten into
// located diagnostics, and the dlopen helper's message for a missing library.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "codegen/DeviceImage.h"
#include "interop/cudacpp/Nvrtc.h"
#include "support/DynamicLibrary.h"
#include "tests/unit/cudacpp_test_util.h"
#include "ufjit/errors.h"

namespace ufjit::cudacpp {
namespace {

using testing::contains;

const char *kHelper =
    "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) {\n"
    "  *ret = x * x * x + y;\n"
    "  return 0;\n"
    "}\n";

const char *kKernel =
    "extern \"C\" __device__ int cube_plus(float *ret, float x, float y);\n"
    "extern \"C\" __global__ void apply(const float *x, float *out, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    float r;\n"
    "    cube_plus(&r, x[i], 1.0f);\n"
    "    out[i] = r;\n"
    "  }\n"
    "}\n";

TEST(Nvrtc, CompilesADeviceFunctionToPtxLtoIrAndCubinForSm90) {
  SKIP_WITHOUT_NVRTC();
  NvrtcSource source{"helpers.cu", kHelper, {}, {}};
  const std::string ptx = nvrtc_compile(source, "sm_90", NvrtcOutput::Ptx);
  EXPECT_TRUE(contains(ptx, ".target sm_90")) << ptx;
  EXPECT_TRUE(contains(ptx, ".visible .func  (.param .b32 func_retval0) cube_plus(")) << ptx;
  const std::string ltoir = nvrtc_compile(source, "sm_90", NvrtcOutput::LtoIr);
  EXPECT_GT(ltoir.size(), 16u);
  const std::string cubin = nvrtc_compile(source, "sm_90", NvrtcOutput::Cubin);
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST(Nvrtc, PassesOptionsThrough) {
  SKIP_WITHOUT_NVRTC();
  NvrtcSource source{"k.cu", "extern \"C\" __device__ float k() { return SCALE; }\n", {}, {"-DSCALE=2.5f"}};
  const std::string ptx = nvrtc_compile(source, "sm_90", NvrtcOutput::Ptx);
  EXPECT_TRUE(contains(ptx, "0f40200000")) << ptx;  // 2.5f
}

TEST(Nvrtc, ErrorIsLocatedInTheUsersFileAtLineAndColumn) {
  SKIP_WITHOUT_NVRTC();
  NvrtcSource source{"helpers.cu",
                     "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) {\n"
                     "  *ret = x * x * x + q;\n"
                     "  return 0;\n"
                     "}\n",
                     {},
                     {}};
  try {
    nvrtc_compile(source, "sm_90", NvrtcOutput::LtoIr);
    FAIL() << "NVRTC accepted an undefined identifier";
  } catch (const CompileError &e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const DiagnosticMessage &d = e.diagnostics()[0];
    EXPECT_EQ(d.file, "helpers.cu");
    EXPECT_EQ(d.line, 2);
    EXPECT_EQ(d.column, 22);  // the 'q'
    EXPECT_EQ(d.severity, "error");
    EXPECT_EQ(d.message, "identifier \"q\" is undefined");
    EXPECT_TRUE(contains(e.what(), "helpers.cu:2:22: error: identifier \"q\" is undefined\n")) << e.what();
    EXPECT_TRUE(contains(e.what(), "  *ret = x * x * x + q;\n")) << e.what();
  }
}

TEST(Nvrtc, MissingIncludeIsALocatedError) {
  SKIP_WITHOUT_NVRTC();
  NvrtcSource source{"helpers.cu", "// helpers\n#include \"nothere.h\"\n", {}, {}};
  try {
    nvrtc_compile(source, "sm_90", NvrtcOutput::Ptx);
    FAIL() << "NVRTC accepted a missing include";
  } catch (const CompileError &e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics()[0].line, 2);
    EXPECT_TRUE(contains(e.what(), "helpers.cu:2:")) << e.what();
    EXPECT_TRUE(contains(e.what(), "cannot open source file \"nothere.h\"")) << e.what();
  }
}

TEST(Nvrtc, IncludeFolderIsSearched) {
  SKIP_WITHOUT_NVRTC();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ufjit-nvrtc-include-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scale.h") << "#define SCALE 3.0f\n";
  NvrtcSource source{"k.cu", "#include \"scale.h\"\nextern \"C\" __device__ float k(float x) { return x * SCALE; }\n",
                     {dir.string()}, {}};
  std::string ptx;
  EXPECT_NO_THROW(ptx = nvrtc_compile(source, "sm_90", NvrtcOutput::Ptx));
  EXPECT_TRUE(contains(ptx, "0f40400000")) << ptx;  // 3.0f
  std::filesystem::remove_all(dir);
}

TEST(Nvrtc, LogRewriteLocatesWarningsAndErrors) {
  NvrtcSource source{"a.cu", "int x;\n  int y = z;\n", {}, {}};
  const std::string log =
      "a.cu(2): error: identifier \"z\" is undefined\n"
      "    int y = z;\n"
      "            ^\n"
      "\n"
      "a.cu(1): warning #177-D: variable \"x\" was declared but never referenced\n"
      "  int x;\n"
      "      ^\n"
      "\n"
      "1 error detected in the compilation of \"a.cu\".\n";
  const std::string out = rewrite_nvrtc_log(source, log);
  EXPECT_TRUE(contains(out, "a.cu:2:11: error: identifier \"z\" is undefined\n")) << out;
  EXPECT_TRUE(contains(out, "a.cu:1:5: warning: variable \"x\" was declared but never referenced\n")) << out;
}

TEST(Nvrtc, LogLineBeyondIntKeepsTheMessageWithoutALine) {
  // `#line 99999999999` in a .cu file: std::stoi once threw out_of_range.
  NvrtcSource source{"a.cu", "int y = z;\n", {}, {}};
  const std::string log = "a.cu(99999999999): error: identifier \"z\" is undefined\n";
  std::string out;
  EXPECT_NO_THROW(out = rewrite_nvrtc_log(source, log));
  EXPECT_TRUE(contains(out, "error: identifier \"z\" is undefined")) << out;
  EXPECT_FALSE(contains(out, "99999999999")) << out;
}

TEST(NvJitLink, LinksNvrtcLtoIrOfAKernelAndItsHelperIntoACubin) {
  SKIP_WITHOUT_NVRTC();
  codegen::DeviceImage image;
  image.inputs.push_back({codegen::LinkInput::Kind::LtoIr, "kernel.cu",
                          nvrtc_compile({"kernel.cu", kKernel, {}, {}}, "sm_90", NvrtcOutput::LtoIr)});
  image.inputs.push_back({codegen::LinkInput::Kind::LtoIr, "helpers.cu",
                          nvrtc_compile({"helpers.cu", kHelper, {}, {}}, "sm_90", NvrtcOutput::LtoIr)});
  ASSERT_TRUE(image.needs_lto());
  const std::string ptx = codegen::link_device_image(image, "sm_90", codegen::LinkOutput::Ptx);
  // LTO inlined the helper: the kernel remains, no call to cube_plus does.
  EXPECT_TRUE(contains(ptx, ".entry apply(")) << ptx;
  EXPECT_FALSE(contains(ptx, "call.uni")) << ptx;
  EXPECT_FALSE(contains(ptx, "cube_plus")) << ptx;
  const std::string cubin = codegen::link_device_image(image, "sm_90");
  EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST(NvJitLink, LinksPtxWithAHelperPtxWithoutLto) {
  SKIP_WITHOUT_NVRTC();
  codegen::DeviceImage image;
  image.ptx = nvrtc_compile({"kernel.cu", kKernel, {}, {}}, "sm_90", NvrtcOutput::Ptx);
  image.inputs.push_back(
      {codegen::LinkInput::Kind::Ptx, "helpers.cu", nvrtc_compile({"helpers.cu", kHelper, {}, {}}, "sm_90",
                                                                  NvrtcOutput::Ptx)});
  EXPECT_FALSE(image.needs_lto());
  const std::string cubin = codegen::link_device_image(image, "sm_90");
  EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST(NvJitLink, UndefinedHelperIsALinkErrorNamingIt) {
  SKIP_WITHOUT_NVRTC();
  codegen::DeviceImage image;
  image.inputs.push_back({codegen::LinkInput::Kind::LtoIr, "kernel.cu",
                          nvrtc_compile({"kernel.cu", kKernel, {}, {}}, "sm_90", NvrtcOutput::LtoIr)});
  try {
    codegen::link_device_image(image, "sm_90");
    FAIL() << "nvJitLink linked a kernel whose helper is missing";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "cube_plus")) << e.what();
  }
}

TEST(DynamicLibrary, MissingLibrarySaysWhichAndHowToInstallIt) {
  support::LibrarySpec spec{"NVRTC", {"libufjit-no-such-nvrtc.so.99"}, "install the CUDA toolkit's NVRTC"};
  support::DynamicLibrary lib = support::DynamicLibrary::open(spec);
  EXPECT_FALSE(lib.ok());
  EXPECT_TRUE(contains(lib.error(), "NVRTC is not available")) << lib.error();
  EXPECT_TRUE(contains(lib.error(), "libufjit-no-such-nvrtc.so.99")) << lib.error();
  EXPECT_TRUE(contains(lib.error(), "install the CUDA toolkit's NVRTC")) << lib.error();
}

TEST(DynamicLibrary, MissingSymbolNamesTheLibraryAndSymbol) {
  support::LibrarySpec spec{"libc", {"libc.so.6"}, "hint"};
  support::DynamicLibrary lib = support::DynamicLibrary::open(spec);
  ASSERT_TRUE(lib.ok()) << lib.error();
  int (*fn)() = nullptr;
  EXPECT_FALSE(lib.resolve("ufjit_no_such_symbol", fn));
  EXPECT_EQ(fn, nullptr);
  EXPECT_TRUE(contains(lib.error(), "libc at libc.so.6 lacks ufjit_no_such_symbol")) << lib.error();
}

TEST(DynamicLibrary, ToolkitCandidatesPutTheEnvironmentFirst) {
  ::setenv("UFJIT_TEST_LIB_PATH", "/opt/x/libfoo.so", 1);
  const std::vector<std::string> paths = support::toolkit_library_candidates("foo", {13}, "UFJIT_TEST_LIB_PATH");
  ::unsetenv("UFJIT_TEST_LIB_PATH");
  ASSERT_GE(paths.size(), 3u);
  EXPECT_EQ(paths[0], "/opt/x/libfoo.so");
  EXPECT_EQ(paths[1], "libfoo.so.13");
  EXPECT_EQ(paths[2], "libfoo.so");
}

}  // namespace
}  // namespace ufjit::cudacpp
