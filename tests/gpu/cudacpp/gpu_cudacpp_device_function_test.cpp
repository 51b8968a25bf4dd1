// On the GPU: a ufunc's scalar function exported with --emit device-ptx is
// called from a CUDA C++ kernel compiled by NVRTC, linked by nvJitLink (LTO
// with the kernel's LTO-IR), loaded and launched through the driver API, and
// its results checked against values computed here on the host in double.
// Skips without a device or without NVRTC.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "codegen/DeviceImage.h"
#include "interop/cudacpp/Nvrtc.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaModule.h"
#include "ufjit/compiler.h"

namespace ufjit::cudacpp {
namespace {

/// The device's context, or a skip with the reason.
class CudaCppGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) {
      GTEST_SKIP() << "no CUDA device: " << why;
    }
    if (!nvrtc_available(&why)) {
      GTEST_SKIP() << "NVRTC cannot be loaded: " << why;
    }
    context_ = std::make_shared<const cuda::CudaContext>(0);
    arch_ = context_->properties().arch();
  }

  /// Device memory freed at the end of the test.
  CUdeviceptr upload(const void *data, std::size_t bytes) {
    CUdeviceptr ptr = context_->allocate(bytes == 0 ? 1 : bytes, nullptr);
    buffers_.push_back(ptr);
    UFJIT_CU_CHECK(context_->drv(), cuMemcpyHtoDAsync_v2, ptr, data, bytes, nullptr);
    return ptr;
  }
  void download(void *data, CUdeviceptr ptr, std::size_t bytes) {
    UFJIT_CU_CHECK(context_->drv(), cuMemcpyDtoHAsync_v2, data, ptr, bytes, nullptr);
    UFJIT_CU_CHECK(context_->drv(), cuCtxSynchronize);
  }
  void TearDown() override {
    for (CUdeviceptr ptr : buffers_) {
      context_->free(ptr);
    }
  }

  std::shared_ptr<const cuda::CudaContext> context_;
  std::string arch_;
  std::vector<CUdeviceptr> buffers_;
};

CompileResult export_function(const std::string &source, const std::string &function, const std::string &abi,
                              const std::string &arch) {
  CompileRequest request;
  request.source = source;
  request.source_name = "funcs.ufn";
  request.emit = EmitKind::DevicePtx;
  request.function = function;
  request.abi = abi;
  request.arch = arch;
  CompileResult result = compile(request);
  EXPECT_TRUE(result.ok) << result.rendered_diagnostics;
  return result;
}

/// The kernel (CUDA C++, NVRTC, LTO-IR) and the exported PTX, linked.
std::string link_kernel(const CompileResult &exported, const std::string &kernel, const std::string &arch) {
  codegen::DeviceImage image;
  image.ptx = exported.output;
  image.ptx_name = "exported.ptx";
  image.inputs.push_back({codegen::LinkInput::Kind::LtoIr, "kernel.cu",
                          nvrtc_compile({"kernel.cu", exported.header + kernel, {}, {}}, arch, NvrtcOutput::LtoIr)});
  return codegen::link_device_image(image, arch);
}

TEST_F(CudaCppGpuTest, HostKernelCallsTheExportedCAbiFunction) {
  CompileResult hyp = export_function(
      "import math\n@vectorize(['float32(float32, float32)'])\ndef hyp(x, y):\n    return math.sqrt(x * x + y * y)\n",
      "hyp", "c", arch_);
  ASSERT_TRUE(hyp.ok);
  const std::string kernel =
      "extern \"C\" __global__ void apply(const float *x, const float *y, float *out, long long n) {\n"
      "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
      "       i += (long long)gridDim.x * blockDim.x) {\n"
      "    out[i] = hyp(x[i], y[i]) + 1.0f;\n"
      "  }\n"
      "}\n";
  std::shared_ptr<cuda::CudaKernel> k = cuda::load_kernel(context_, link_kernel(hyp, kernel, arch_), "apply", cuda::HintSource::None);
  for (long long n : {0LL, 1LL, 1025LL, 1000001LL}) {
    std::mt19937 gen(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    std::vector<float> x(n), y(n), out(n, -1.0f);
    for (long long i = 0; i < n; ++i) {
      x[i] = dist(gen);
      y[i] = dist(gen);
    }
    const std::size_t bytes = n * sizeof(float);
    CUdeviceptr dx = upload(x.data(), bytes);
    CUdeviceptr dy = upload(y.data(), bytes);
    CUdeviceptr dout = upload(out.data(), bytes);
    void *params[] = {&dx, &dy, &dout, &n};
    cuda::launch(*k, n, params, nullptr);
    download(out.data(), dout, bytes);
    for (long long i = 0; i < n; ++i) {
      const double expected = std::sqrt(double(x[i]) * x[i] + double(y[i]) * y[i]) + 1.0;
      ASSERT_NEAR(out[i], expected, std::abs(expected) * 4e-7) << "n=" << n << " i=" << i << " x=" << x[i]
                                                               << " y=" << y[i];
    }
  }
}

TEST_F(CudaCppGpuTest, HostKernelCallsTheExportedNumbaAbiFunctionWithSubWordTypes) {
  CompileResult mix = export_function(
      "@vectorize(['int16(int8, uint16, bool)'])\ndef mix(a, b, flag):\n"
      "    if flag:\n        return a * 3 - b\n    return a + 1000\n",
      "mix", "numba", arch_);
  ASSERT_TRUE(mix.ok);
  const std::string kernel =
      "extern \"C\" __global__ void apply(const int8_t *a, const uint16_t *b, const bool *f, int16_t *out,"
      " int *status, long long n) {\n"
      "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
      "       i += (long long)gridDim.x * blockDim.x) {\n"
      "    int16_t r;\n"
      "    status[i] = mix(&r, a[i], b[i], f[i]);\n"
      "    out[i] = r;\n"
      "  }\n"
      "}\n";
  std::shared_ptr<cuda::CudaKernel> k = cuda::load_kernel(context_, link_kernel(mix, kernel, arch_), "apply", cuda::HintSource::None);
  const long long n = 70001;
  std::vector<int8_t> a(n);
  std::vector<uint16_t> b(n);
  std::vector<uint8_t> f(n);  // bool storage: one byte, 0 or 1
  std::mt19937 gen(7);
  for (long long i = 0; i < n; ++i) {
    a[i] = static_cast<int8_t>(gen());
    b[i] = static_cast<uint16_t>(gen());
    f[i] = static_cast<uint8_t>(gen() & 1u);
  }
  std::vector<int16_t> out(n, 0);
  std::vector<int> status(n, -1);
  CUdeviceptr da = upload(a.data(), n);
  CUdeviceptr db = upload(b.data(), n * 2);
  CUdeviceptr df = upload(f.data(), n);
  CUdeviceptr dout = upload(out.data(), n * 2);
  CUdeviceptr dstatus = upload(status.data(), n * sizeof(int));
  void *params[] = {&da, &db, &df, &dout, &dstatus, const_cast<long long *>(&n)};
  cuda::launch(*k, n, params, nullptr);
  download(out.data(), dout, n * 2);
  download(status.data(), dstatus, n * sizeof(int));
  for (long long i = 0; i < n; ++i) {
    // NumPy: int8 * 3 stays int8 (weak literal, wraps), int8 - uint16 -> int32, then int16 at return.
    const int8_t tripled = static_cast<int8_t>(a[i] * 3);
    const int16_t expected =
        f[i] != 0 ? static_cast<int16_t>(int32_t{tripled} - int32_t{b[i]}) : static_cast<int16_t>(a[i] + 1000);
    ASSERT_EQ(out[i], expected) << "i=" << i << " a=" << int(a[i]) << " b=" << b[i] << " f=" << int(f[i]);
    ASSERT_EQ(status[i], 0) << "i=" << i;
  }
}

}  // namespace
}  // namespace ufjit::cudacpp
