// A ufunc's scalar function exported as an extern "C" __device__ function
// (--emit device-ptx): the PTX symbol and parameters, the header, both ABIs,
// refusals, and an NVRTC kernel that calls it linked by nvJitLink (no GPU).
#include <gtest/gtest.h>

#include "codegen/DeviceImage.h"
#include "interop/cudacpp/Nvrtc.h"
#include "ufjit/compiler.h"
#include "ufjit/ufjit.h"

namespace ufjit::cudacpp {
namespace {

bool contains(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

const char *kSource =
    "import math\n"
    "@vectorize(['float32(float32, float32)', 'float64(float64, float64)'])\n"
    "def hyp(x, y):\n"
    "    return math.sqrt(x * x + y * y)\n"
    "@vectorize(['bool(int8, uint16)'])\n"
    "def small(a, b):\n"
    "    return a < b\n"
    "@vectorize(['complex64(complex64)'])\n"
    "def twice(z):\n"
    "    return z + z\n";

CompileResult export_function(const std::string &function, const std::string &signature, const std::string &abi,
                              const std::string &symbol = "") {
  CompileRequest request;
  request.source = kSource;
  request.source_name = "funcs.ufn";
  request.emit = EmitKind::DevicePtx;
  request.function = function;
  request.signature = signature;
  request.abi = abi;
  request.symbol = symbol;
  return compile(request);
}

TEST(DeviceFunction, CAbiExportsOneVisibleFuncAndAHeader) {
  CompileResult r = export_function("hyp", "f4(f4, f4)", "c");
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_TRUE(contains(r.output, ".visible .func  (.param .b32 func_retval0) hyp(")) << r.output;
  EXPECT_FALSE(contains(r.output, ".entry")) << r.output;
  EXPECT_TRUE(contains(r.header, "extern \"C\" __device__ float hyp(float x, float y);")) << r.header;
  EXPECT_TRUE(contains(r.header, "float32(float32, float32)")) << r.header;
}

TEST(DeviceFunction, NumbaAbiReturnsAStatusAndWritesThroughRet) {
  CompileResult r = export_function("hyp", "float64(float64, float64)", "numba", "hyp_f8");
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_TRUE(contains(r.output, ".visible .func  (.param .b32 func_retval0) hyp_f8(")) << r.output;
  EXPECT_TRUE(contains(r.output, "st.f64")) << r.output;
  EXPECT_TRUE(contains(r.header, "extern \"C\" __device__ int hyp_f8(double *ret, double x, double y);"))
      << r.header;
}

TEST(DeviceFunction, SeveralSignaturesNeedOneChosen) {
  try {
    export_function("hyp", "", "c");
    FAIL() << "a function of two signatures was exported without --signature";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "choose one with --signature (float32(float32, float32), "
                                   "float64(float64, float64))"))
        << e.what();
  }
  EXPECT_THROW(export_function("hyp", "int32(int32, int32)", "c"), Error);
  EXPECT_THROW(export_function("nothere", "", "c"), Error);
}

TEST(DeviceFunction, ComplexHasNoCAbiAndSaysSo) {
  try {
    export_function("twice", "", "c");
    FAIL() << "complex exported";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "parameter 'z' of 'twice' is complex64")) << e.what();
  }
}

TEST(DeviceFunction, LtoIrIsRefusedWithTheReason) {
  CompileRequest request;
  request.source = kSource;
  request.emit = EmitKind::DeviceLtoIr;
  request.function = "hyp";
  try {
    compile(request);
    FAIL() << "device-ltoir accepted";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "use --emit device-ptx")) << e.what();
    EXPECT_TRUE(contains(e.what(), "LTO-IR is NVVM's format")) << e.what();
    EXPECT_TRUE(contains(e.what(), "libNVVM")) << e.what();
  }
}

TEST(DeviceFunction, UfuncApiGivesTheSameFunctionAndHeader) {
  RuntimeOptions options;
  options.target = TargetKind::Cpu;
  Runtime rt(options);
  Ufunc hyp = rt.load(kSource, "funcs.ufn")["hyp"];
  DeviceFunction fn = hyp.device_function("f8(f8, f8)", "sm_90", "ptx", "c");
  EXPECT_EQ(fn.symbol, "hyp");
  EXPECT_TRUE(contains(fn.code, ".visible .func  (.param .b64 func_retval0) hyp(")) << fn.code;
  EXPECT_TRUE(contains(fn.header, "extern \"C\" __device__ double hyp(double x, double y);")) << fn.header;
  EXPECT_THROW(hyp.device_function("int8(int8, int8)"), DispatchError);
  EXPECT_THROW(hyp.device_function("float32(float32, float32)", "sm_90", "ltoir"), Error);
  EXPECT_THROW(hyp.device_function("float32(float32, float32)", "sm_90", "ptx", "fortran"), Error);
}

TEST(DeviceFunction, AnNvrtcKernelCallingItLinksWithNvJitLink) {
  std::string why;
  if (!nvrtc_available(&why)) {
    GTEST_SKIP() << "NVRTC cannot be loaded: " << why;
  }
  CompileResult small = export_function("small", "", "c");
  ASSERT_TRUE(small.ok) << small.rendered_diagnostics;
  // Sub-word parameters and a bool result, as NVRTC passes them.
  EXPECT_TRUE(contains(small.header, "extern \"C\" __device__ bool small(int8_t a, uint16_t b);")) << small.header;
  const std::string kernel = small.header +
                             "extern \"C\" __global__ void k(const signed char *a, const unsigned short *b, "
                             "bool *out, int n) {\n"
                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "  if (i < n) out[i] = small(a[i], b[i]);\n"
                             "}\n";
  for (NvrtcOutput form : {NvrtcOutput::LtoIr, NvrtcOutput::Ptx}) {
    codegen::DeviceImage image;
    image.ptx = small.output;
    image.ptx_name = "small.ptx";
    const std::string code = nvrtc_compile({"kernel.cu", kernel, {}, {}}, "sm_90", form);
    image.inputs.push_back(
        {form == NvrtcOutput::LtoIr ? codegen::LinkInput::Kind::LtoIr : codegen::LinkInput::Kind::Ptx, "kernel.cu",
         code});
    const std::string cubin = codegen::link_device_image(image, "sm_90");
    EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
  }
}

}  // namespace
}  // namespace ufjit::cudacpp
